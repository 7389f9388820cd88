import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EVENTBRIDGE_MAX_ENTRY_BYTES,
  eventPublisher,
  installEventPublisher,
  putEventsEntry,
  putEventsEntrySize,
  type InstanceEvent,
} from '../../functions/events/publisher.js';
import { localBus, localEventBus } from '../../lib/local/events.js';

const base = {
  type: 'ProcessInstanceStatusChanged',
  tenantId: 'demo',
  processInstanceId: '01J0000000000000000000000',
  processDefnId: 'def',
  processDefnName: 'identity-check',
  processDefnVersion: 1,
  at: '2026-01-01T00:00:00.000Z',
  status: 'COMPLETED_ENDED_SUCCESS',
  previousStatus: 'ACTIVE',
} as const satisfies InstanceEvent;

/** An event whose PutEvents entry is exactly `bytes` long (the name carries the padding). */
function eventOfEntrySize(bytes: number): InstanceEvent {
  const event = { ...base, processDefnName: '' };
  const pad = bytes - putEventsEntrySize(putEventsEntry(event));
  return { ...event, processDefnName: 'n'.repeat(pad) };
}

describe('putEventsEntrySize', () => {
  it('counts as EventBridge does: UTF-8 bytes of Source, DetailType, Detail and Resources, 14 for Time', () => {
    expect(putEventsEntrySize({ Source: 'a.b', DetailType: 'Änderung', Detail: '{"x":"€"}' })).toBe(3 + 9 + 11);
    expect(putEventsEntrySize({ Time: new Date(), Source: 's', DetailType: 'd', Resources: ['arn:1', 'arn:22'] })).toBe(14 + 1 + 1 + 5 + 6);
  });
});

describe('localEventBus', () => {
  it('delivers an event whose entry is exactly 256 KB', async () => {
    const seen: InstanceEvent[] = [];
    const listener = (e: InstanceEvent) => seen.push(e);
    localBus.on('event', listener);
    try {
      await localEventBus().publish(eventOfEntrySize(EVENTBRIDGE_MAX_ENTRY_BYTES));
      expect(seen).toHaveLength(1);
    } finally {
      localBus.off('event', listener);
    }
  });

  it('refuses an event over EventBridge\u2019s 256 KB entry limit, as PutEvents does, and delivers nothing', async () => {
    const seen: InstanceEvent[] = [];
    const listener = (e: InstanceEvent) => seen.push(e);
    localBus.on('event', listener);
    try {
      await expect(localEventBus().publish(eventOfEntrySize(EVENTBRIDGE_MAX_ENTRY_BYTES + 1))).rejects.toMatchObject({ name: 'ValidationException' });
      expect(seen).toEqual([]);
    } finally {
      localBus.off('event', listener);
    }
  });
});

describe('eventPublisher on AWS', () => {
  const eventBridge = mockClient(EventBridgeClient);
  beforeEach(() => {
    eventBridge.reset();
    installEventPublisher(undefined as never);
  });
  afterEach(() => installEventPublisher(undefined as never));

  it('puts the event on the default bus as the entry the local bus checks', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    await (await eventPublisher()).publish(base);
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input.Entries).toEqual([putEventsEntry(base)]);
    expect(JSON.parse(calls[0]!.args[0].input.Entries![0]!.Detail!)).toEqual(base);
  });

  it('throws when EventBridge refuses the entry, so the caller can retry', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'x' }] });
    await expect((await eventPublisher()).publish(base)).rejects.toThrow(/InternalFailure/);
  });
});
