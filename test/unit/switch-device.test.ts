/**
 * Switch Device: its direction from the family's inputs, its QR code, and its link against
 * Amazon's DynamoDB Local (the table made from the same schema module the stack uses), with
 * Step Functions faked: what the link gives, once, and what it refuses, changing nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand, QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import qrcode from 'qrcode-generator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import type { ProcessInstanceRecord, ProcessTokenRecord, WaitingStep } from '../../functions/process-manager/model.js';
import { instanceEvents } from '../../functions/events/catalogue.js';
import { hashCapability } from '../../functions/process-manager/instances/instances.js';
import { QR_QUIET_ZONE, qrCodeSvg, qrModules } from '../../functions/journey/qr-code.js';
import { begin } from '../../functions/activities/switch-device.js';
import { ActivityError } from '../../functions/activities/contract.js';
import { switchLinkSecret, switchModeOf, visitOf } from '../../functions/journey/devices.js';

const TENANT = 'acme';
const TABLE = 'switch-unit';
const TO_PHONE = { 'UI Component ID': 'instructions', 'List of Screens': ['instructions', 'scan-qr', 'mobile-switch-status'], 'Starting Component ID': 'mobile-switch' };
const TO_COMPUTER = { 'UI Component ID': 'switch-to-desktop', 'List of Screens': ['switch-to-desktop'], 'Starting Component ID': 'switch-to-desktop' };

describe('the direction of a Switch Device step', () => {
  it('is read from the family\'s screens, with or without the list and the component', () => {
    expect(switchModeOf(TO_PHONE)).toBe('to-mobile');
    expect(switchModeOf(TO_COMPUTER)).toBe('to-desktop');
    expect(switchModeOf({ 'UI Component ID': 'scan-qr' })).toBe('to-mobile');
    expect(switchModeOf({ 'UI Component ID': 'switch-to-desktop' })).toBe('to-desktop');
  });

  it('is none when the inputs name both directions or a screen the family has not, and such a step fails as it begins', async () => {
    for (const inputs of [
      { ...TO_PHONE, 'List of Screens': ['instructions', 'switch-to-desktop'] },
      { ...TO_PHONE, 'Starting Component ID': 'switch-to-desktop' },
      { ...TO_COMPUTER, 'List of Screens': ['switch-to-desktop', 'elsewhere'] },
    ]) {
      expect(switchModeOf(inputs), JSON.stringify(inputs)).toBeUndefined();
      const failed = await begin({ activityId: 'sw', inputs, session: { instance: { tenantId: TENANT, processInstanceId: 'x' } }, tenantId: TENANT, actor: 'a', now: new Date(), deps: {} } as never).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ActivityError);
      expect((failed as ActivityError).name).toBe('InvalidInput');
    }
    expect(await begin({ activityId: 'sw', inputs: TO_PHONE } as never)).toEqual(TO_PHONE);
  });
});

describe('the QR code', () => {
  const text = 'https://demo.eu.example.com/journey/00000000-0000-4000-8000-000000000001/switch?s=' + 'A'.repeat(43) + '&lang=de';

  it('draws exactly the modules qrcode-generator makes for the link, with a quiet zone, as inline SVG', () => {
    const svg = qrCodeSvg(text, 'QR "code" <of> the link');
    const modules = qrModules(text);
    const side = modules.length + 2 * QR_QUIET_ZONE;
    expect(svg).toContain(`viewBox="0 0 ${side} ${side}"`);
    expect(svg).toContain('aria-label="QR &quot;code&quot; &lt;of&gt; the link"');
    expect(svg).not.toMatch(/<script|href=|xlink|on[a-z]+=/i);
    // Read the path back into modules.
    const drawn = Array.from({ length: side }, () => Array.from({ length: side }, () => false));
    for (const [, x, y, run] of svg.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) {
      for (let i = 0; i < Number(run); i++) drawn[Number(y)]![Number(x) + i] = true;
    }
    const expected = drawn.map((row, y) => row.map((_, x) => modules[y - QR_QUIET_ZONE]?.[x - QR_QUIET_ZONE] ?? false));
    expect(drawn).toEqual(expected);
    // The same code as the library's own: the smallest version at level M.
    const reference = qrcode(0, 'M');
    reference.addData(text, 'Byte');
    reference.make();
    expect(modules.length).toBe(reference.getModuleCount());
    expect(modules.length).toBeLessThanOrEqual(49);
  });
});

describe('the switch link secret', () => {
  const record = { tenantId: TENANT, id: 'pi-1' };
  const step = { activityId: 'toPhone', taskToken: 'token-1' };

  it('is 256 bits, the same each time for one device and visit, and another for another device or visit', () => {
    const secret = switchLinkSecret('cap-a', record, step);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(switchLinkSecret('cap-a', record, step)).toBe(secret);
    expect(switchLinkSecret('cap-b', record, step)).not.toBe(secret);
    expect(switchLinkSecret('cap-a', record, { ...step, taskToken: 'token-2' })).not.toBe(secret);
    expect(switchLinkSecret('cap-a', { ...record, id: 'pi-2' }, step)).not.toBe(secret);
    expect(visitOf(step)).not.toContain('token-1');
  });
});

describe('opening a switch link (DynamoDB Local)', () => {
  let local: LocalDynamo;
  let client: DynamoDBClient;
  let dir: string;
  let devices: typeof import('../../functions/journey/devices.js');
  let store: typeof import('../../functions/store/process-instances.js').processInstanceStore;
  let keys: typeof import('../../functions/store/keys.js').keys;
  let access: typeof import('../../functions/journey/access.js');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switch-device-'));
    local = await startDynamoDbLocal(dir);
    process.env.DYNAMODB_ENDPOINT = local.endpoint;
    process.env.TABLE_NAME = TABLE;
    client = localClient(local.endpoint);
    await ensureTable(client, TABLE);
    devices = await import('../../functions/journey/devices.js');
    access = await import('../../functions/journey/access.js');
    ({ processInstanceStore: store } = await import('../../functions/store/process-instances.js'));
    ({ keys } = await import('../../functions/store/keys.js'));
  }, 90_000);

  afterAll(async () => {
    client?.destroy();
    await local?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const began = new Date('2026-03-01T00:01:00.000Z');
  const soon = new Date(began.getTime() + 30_000);
  const CAPABILITY = 'computer-capability-'.padEnd(43, 'x');
  let seq = 0;

  /** An instance waiting at a step to a phone, held by its own link, and the link its page shows. */
  async function waitingAtSwitch(): Promise<{ record: ProcessInstanceRecord; step: WaitingStep; secret: string }> {
    const n = ++seq;
    const token = { tenantId: TENANT, id: `tok${n}` } as ProcessTokenRecord;
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc, tableName } = await dynamo();
    await doc.send(new PutCommand({ TableName: tableName, Item: { ...keys.processToken(TENANT, token.id), itemType: 'ProcessToken', status: 'ACTIVE', counter: 0, maxCount: null, validFromDtm: null, validToDtm: null } }));
    const record: ProcessInstanceRecord = {
      tenantId: TENANT,
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      processDefnId: 'def-1',
      processDefnName: 'switch',
      processDefnVersion: 1,
      processTokenId: token.id,
      status: 'ACTIVE',
      createdAt: began.toISOString(),
      lastUpdatedAt: began.toISOString(),
      retentionDays: 1,
      expiringDtm: new Date(began.getTime() + 86_400_000).toISOString(),
      expiresAt: Math.floor(began.getTime() / 1000) + 86_400,
      parameters: {},
      capabilityHash: hashCapability(CAPABILITY),
      stateMachineArn: 'arn:sm',
      createdBy: 'op',
    };
    expect(await store.createWithToken(record, token, began, instanceEvents.created(record, began))).toEqual({ outcome: 'created' });
    const step: WaitingStep = {
      activityId: 'toPhone',
      activityType: 'SWITCH_DEVICE',
      inputs: { ...TO_PHONE, 'Step Timeout (Seconds)': 1800 },
      state: { instance: { tenantId: TENANT, processInstanceId: record.id }, vars: {} },
      taskToken: `task-${n}`,
      since: began.toISOString(),
    };
    expect(await store.setWaitingStep(record, step, instanceEvents.stepChanged(record, step, began))).toBe(true);
    const shown = (await store.get(TENANT, record.id))!;
    const link = await devices.switchLinkFor({ record: shown, step: shown.currentStep!, capability: CAPABILITY, lang: 'en', origin: 'https://demo.example' }, began);
    const secret = new URL(link).searchParams.get('s')!;
    // Shown again: the same link, and still one item.
    expect(await devices.switchLinkFor({ record: shown, step: shown.currentStep!, capability: CAPABILITY, lang: 'en' }, soon)).toBe(`/journey/${record.id}/switch?s=${secret}&lang=en`);
    return { record, step, secret };
  }

  /** Step Functions, faked: what it was sent, and what it answers. */
  function stepFunctions(answer: () => Promise<void> = async () => undefined) {
    const sent: { token: string; output: Record<string, unknown> }[] = [];
    return {
      sent,
      resumer: {
        async sendTaskSuccess(token: string, output: object) {
          await answer();
          sent.push({ token, output: output as Record<string, unknown> });
        },
        async sendTaskFailure() {
          throw new Error('not expected');
        },
      },
    };
  }
  const noTimer = async () => undefined;

  async function items(id: string) {
    const out = await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': { S: keys.instancePartition(TENANT, id) } }, ConsistentRead: true }));
    return (out.Items ?? []).map((i) => unmarshall(i));
  }
  const raw = async (key: { PK: string; SK: string }) => {
    const out = await client.send(new GetItemCommand({ TableName: TABLE, Key: { PK: { S: key.PK }, SK: { S: key.SK } }, ConsistentRead: true }));
    return out.Item && unmarshall(out.Item);
  };

  it('keeps only the hash of the link shown, with the step and the device that showed it, expiring with the instance', async () => {
    const { record, step, secret } = await waitingAtSwitch();
    const links = (await items(record.id)).filter((i) => String(i.SK).startsWith('SWITCHLINK#'));
    expect(links).toHaveLength(1);
    expect(JSON.stringify(links)).not.toContain(secret);
    expect(links[0]).toMatchObject({ activityId: 'toPhone', step: visitOf(step), issuer: record.capabilityHash, expiresAt: record.expiresAt });
    expect(JSON.stringify(links)).not.toContain(step.taskToken);
  });

  it('completes the step, gives the phone a capability of its own and the journey, once', async () => {
    const { record, step, secret } = await waitingAtSwitch();
    const sfn = stepFunctions();
    const opened = await devices.openSwitchLink({ tenantId: TENANT, processInstanceId: record.id, secret }, { resumer: sfn.resumer, timerSeconds: noTimer }, soon);
    expect(sfn.sent).toEqual([{ token: step.taskToken, output: expect.objectContaining({ vars: { H_isSwitchedFromDesktop: true, isMobile: true } }) }]);
    expect(opened.capability).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const after = (await store.get(TENANT, record.id))!;
    expect(after.currentStep).toBeUndefined();
    expect(after.holder).toMatchObject({ capabilityHash: hashCapability(opened.capability), from: record.capabilityHash, via: 'to-mobile', activityId: 'toPhone', step: visitOf(step) });
    // The phone's capability opens the journey; the computer's still does (it follows).
    await expect(access.openJourney(TENANT, record.id, opened.capability, soon)).resolves.toMatchObject({ id: record.id });
    await expect(access.openJourney(TENANT, record.id, CAPABILITY, soon)).resolves.toMatchObject({ id: record.id });
    await expect(access.openJourney(TENANT, record.id, 'another'.padEnd(43, 'y'), soon)).rejects.toMatchObject({ code: 'JOURNEY_NOT_AVAILABLE' });
    expect(devices.holds(after, opened.capability)).toBe(true);
    expect(devices.holds(after, CAPABILITY)).toBe(false);
    // The device is kept as a hash only.
    expect(JSON.stringify(await items(record.id))).not.toContain(opened.capability);

    // Again: used up, and nothing changes.
    const before = await items(record.id);
    await expect(devices.openSwitchLink({ tenantId: TENANT, processInstanceId: record.id, secret }, { resumer: sfn.resumer, timerSeconds: noTimer }, soon)).rejects.toMatchObject({ code: 'SWITCH_LINK_USED' });
    expect(await items(record.id)).toEqual(before);
    expect(sfn.sent).toHaveLength(1);
  });

  it('refuses a link past its step\'s timer, or a link of a step the journey moved on from, writing nothing', async () => {
    const timed = await waitingAtSwitch();
    const sfn = stepFunctions();
    const before = await items(timed.record.id);
    // A 20 s timer (the definition's) beats the Step Timeout default the inputs carry.
    const timer = async () => 20;
    await expect(devices.openSwitchLink({ tenantId: TENANT, processInstanceId: timed.record.id, secret: timed.secret }, { resumer: sfn.resumer, timerSeconds: timer }, soon)).rejects.toMatchObject({
      code: 'SWITCH_LINK_EXPIRED',
    });
    expect(await items(timed.record.id)).toEqual(before);

    // The journey waits at another step now.
    const moved = await waitingAtSwitch();
    const next = { ...moved.step, activityId: 'details', activityType: 'DATA_FORM', taskToken: 'task-next' };
    await store.setWaitingStep(moved.record, next, instanceEvents.stepChanged(moved.record, next, soon));
    await expect(devices.openSwitchLink({ tenantId: TENANT, processInstanceId: moved.record.id, secret: moved.secret }, { resumer: sfn.resumer, timerSeconds: noTimer }, soon)).rejects.toMatchObject({
      code: 'SWITCH_LINK_EXPIRED',
    });
    expect(sfn.sent).toEqual([]);
    expect((await store.get(TENANT, moved.record.id))!.holder).toBeUndefined();
    // An unknown secret: as unknown as a wrong journey link.
    await expect(devices.openSwitchLink({ tenantId: TENANT, processInstanceId: moved.record.id, secret: 'x'.repeat(43) }, { resumer: sfn.resumer, timerSeconds: noTimer }, soon)).rejects.toMatchObject({
      code: 'JOURNEY_NOT_AVAILABLE',
    });
  });

  it('goes on when opened again after Step Functions did not confirm the hand-over, and still makes one device', async () => {
    const { record, step, secret } = await waitingAtSwitch();
    let lost = true;
    const sfn = stepFunctions(async () => {
      if (lost) {
        lost = false;
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', $metadata: {} });
      }
    });
    const open = () => devices.openSwitchLink({ tenantId: TENANT, processInstanceId: record.id, secret }, { resumer: sfn.resumer, timerSeconds: noTimer }, soon);
    await expect(open()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // Opened, and the step claimed: no device yet.
    expect(await raw(keys.instanceSwitchLink(TENANT, record.id, hashOf(secret)))).toMatchObject({ openedAt: soon.toISOString() });
    expect((await store.get(TENANT, record.id))!.holder).toBeUndefined();
    const opened = await open();
    expect(sfn.sent.map((s) => s.token)).toEqual([step.taskToken]);
    expect((await store.get(TENANT, record.id))!.holder?.capabilityHash).toBe(hashCapability(opened.capability));
    await expect(open()).rejects.toMatchObject({ code: 'SWITCH_LINK_USED' });
  });

  it('refuses a link once the journey has moved to another device since it was shown', async () => {
    const { record, secret } = await waitingAtSwitch();
    const { switchDevices } = await import('../../functions/journey/deps.js');
    // As if an earlier switch had given the journey to another device.
    const { doc, tableName, commands } = await (await import('../../functions/store/client.js')).dynamo();
    await doc.send(new commands.UpdateCommand({ TableName: tableName, Key: keys.instance(TENANT, record.id), UpdateExpression: 'SET holder = :h', ExpressionAttributeValues: { ':h': { capabilityHash: 'other', from: record.capabilityHash, via: 'to-mobile', activityId: 'earlier', step: 's', since: began.toISOString() } } }));
    const sfn = stepFunctions();
    await expect(devices.openSwitchLink({ tenantId: TENANT, processInstanceId: record.id, secret }, { resumer: sfn.resumer, timerSeconds: noTimer }, soon)).rejects.toMatchObject({ code: 'SWITCH_LINK_EXPIRED' });
    expect(sfn.sent).toEqual([]);
    expect(await switchDevices.getLink(TENANT, record.id, hashOf(secret), soon)).not.toHaveProperty('openedAt');
  });
});

/** The store's key of a link: the SHA-256 of its secret, base64url (functions/journey/devices.ts). */
function hashOf(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}
