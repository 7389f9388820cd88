import { describe, expect, it } from 'vitest';
import {
  InvalidBpmnError,
  bpmnText,
  decodeBpmnData,
  locateOnBpmn,
  notRunnableActivities,
  notRunnableTasks,
  problemDetail,
} from '../../functions/process-manager/definitions/bpmn-upload.js';
import { MAX_BPMN_BYTES } from '../../functions/process-manager/definitions/definition-schemas.js';
import type { BpmnGraph } from '../../statemachines/bpmn/graph.js';
import type { ProcessDefinitionInput } from '../../statemachines/definition.js';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe('decodeBpmnData', () => {
  it('decodes padded RFC 4648 base64 to the bytes sent', () => {
    const bytes = Buffer.from('\ufeff<a>Zürich\r\n</a>', 'utf8');
    expect(decodeBpmnData(bytes.toString('base64')).equals(bytes)).toBe(true);
  });

  it.each([
    ['line breaks', 'PGE+\nPC9hPg=='],
    ['no padding', 'PGE+PC9hPg'],
    ['the URL alphabet', 'PD94-_w=='],
    ['stray characters', 'PGE+PC9h*g=='],
    ['padding in the middle', 'PG==PC9hPg=='],
    ['non-zero padding bits', 'PGE+PC9hPh=='],
    ['nothing', ''],
  ])('refuses %s with INVALID_BPMN_DATA', (_why, data) => {
    expect(codeOf(() => decodeBpmnData(data))).toBe('INVALID_BPMN_DATA');
  });

  it('refuses a file over the limit with 413 before decoding it, and takes one at the limit', () => {
    expect(decodeBpmnData(Buffer.alloc(MAX_BPMN_BYTES, 'a').toString('base64'))).toHaveLength(MAX_BPMN_BYTES);
    expect(codeOf(() => decodeBpmnData(Buffer.alloc(MAX_BPMN_BYTES + 1, 'a').toString('base64')))).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('bpmnText', () => {
  it('reads UTF-8, skipping a byte-order mark', () => {
    expect(bpmnText(Buffer.from('\ufeff<a>ü</a>', 'utf8'))).toBe('<a>ü</a>');
  });
  it('refuses bytes that are not UTF-8', () => {
    expect(codeOf(() => bpmnText(Buffer.from('<a>Zürich</a>', 'latin1')))).toBe('INVALID_BPMN_DATA');
  });
});

const graph = (over: Partial<BpmnGraph>): BpmnGraph => ({
  process: { id: 'P', isExecutable: true },
  startEvents: [{ id: 'StartEvent_1', kind: 'startEvent' }],
  endEvents: [],
  tasks: [],
  gateways: [],
  flows: [],
  boundaryEvents: [],
  errors: [],
  problems: [],
  ...over,
});

describe('InvalidBpmnError', () => {
  it('lists every problem, and its message counts them all', () => {
    const problems = Array.from({ length: 225 }, (_, i) => ({ location: `bpmn.Task_${i}`, message: `bpmn:ServiceTask "Task_${i}": no such bean` }));
    const err = new InvalidBpmnError(problems);
    expect(err.toBody().details).toHaveLength(225);
    expect(err.message).toMatch(/^The BPMN cannot be deployed\. bpmn\.Task_0: .* \(224 more problems in details\)$/);
  });

  it('repeats at most the start of a very long first problem in its message', () => {
    const err = new InvalidBpmnError([{ location: `bpmn.${'x'.repeat(10_000)}`, message: 'no such bean' }]);
    expect(err.message.length).toBeLessThan(600);
    expect(err.toBody().details![0]!.location).toHaveLength(10_005);
  });
});

describe('problemDetail', () => {
  it('locates a problem at its element, with the bean name and the input', () => {
    expect(problemDetail({ code: 'UNKNOWN_ACTIVITY', id: 'Task_1', element: 'bpmn:ServiceTask', beanName: 'teleportV1', message: 'teleportV1 names no activity' })).toEqual({
      location: 'bpmn.Task_1',
      message: 'bpmn:ServiceTask "Task_1" (bean teleportV1): teleportV1 names no activity',
    });
    expect(problemDetail({ code: 'INVALID_INPUT', id: 'Task_1', element: 'bpmn:ServiceTask', input: 'Face Key', message: 'bad' }).location).toBe(
      'bpmn.Task_1.inputs.Face Key',
    );
    expect(problemDetail({ code: 'INVALID_XML', message: 'not BPMN 2.0 XML' })).toEqual({ location: 'body.resources.bpmn.data', message: 'not BPMN 2.0 XML' });
  });
});

describe('the activities this deployment cannot run', () => {
  it('are named in a BPMN graph by element, bean and type', () => {
    const details = notRunnableTasks(
      graph({
        tasks: [
          { id: 'Task_run', kind: 'serviceTask', beanName: 'addUserV1', activityType: 'ADD_USER', inputs: {}, outputs: {} },
          { id: 'Task_cf', kind: 'serviceTask', beanName: 'archiveProcessInstanceV1', activityType: 'ARCHIVE_PROCESS_INSTANCE', inputs: {}, outputs: {} },
        ],
      }),
    );
    expect(details).toEqual([
      { location: 'bpmn.Task_cf', message: expect.stringMatching(/^bpmn:ServiceTask "Task_cf" \(bean archiveProcessInstanceV1, ARCHIVE_PROCESS_INSTANCE\): this deployment cannot run it: /) },
    ]);
  });

  it('are named in the JSON format by activity and type, whatever else is wrong with it', () => {
    expect(notRunnableActivities({ activities: { a: { type: 'ADD_USER' }, b: { type: 'WAIT_ON_PUSH_NOTIFICATION' }, c: null, d: { type: 'toString' } } })).toEqual([
      { location: 'activities.b.type', message: expect.stringContaining('activity "b" (WAIT_ON_PUSH_NOTIFICATION): this deployment cannot run it') },
    ]);
    expect(notRunnableActivities('nonsense')).toEqual([]);
  });
});

describe('locateOnBpmn', () => {
  const definition: ProcessDefinitionInput = {
    name: 'n',
    version: 1,
    startActivityId: 'Task.1',
    activities: {
      'Task.1': { type: 'CAPTURE_FACE_IMAGE', next: 'Gateway_1', timer: { id: 'Event_timer', duration: 'PT1M', next: 'End_1' } },
      Task: { type: 'ADD_USER', next: 'End_1' },
    },
    gateways: { Gateway_1: { branches: [{ id: 'Flow_a', when: '${x}', next: 'Task' }, { when: '${y}', next: 'Task' }], default: 'End_1', defaultFlowId: 'Flow_d' } },
    ends: { End_1: {} },
  };
  const at = (location: string) => locateOnBpmn({ location, message: 'm' }, definition, graph({})).location;

  it('puts each detail on the BPMN element it is about', () => {
    expect(at('activities.Task.1.inputs.Face Key')).toBe('bpmn.Task.1.inputs.Face Key');
    expect(at('activities.Task.type')).toBe('bpmn.Task.type');
    expect(at('activities.Task.1.timer.duration')).toBe('bpmn.Event_timer.duration');
    expect(at('gateways.Gateway_1.branches.0.when')).toBe('bpmn.Flow_a.when');
    expect(at('gateways.Gateway_1.branches.1.when')).toBe('bpmn.Gateway_1.branches.1.when');
    expect(at('gateways.Gateway_1.default')).toBe('bpmn.Flow_d');
    expect(at('ends.End_1')).toBe('bpmn.End_1');
    expect(at('startActivityId')).toBe('bpmn.StartEvent_1');
    expect(at('description')).toBe('body.description');
  });
});
