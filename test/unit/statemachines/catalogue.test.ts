import { describe, expect, it } from 'vitest';
import {
  ACTIVITY_TYPES,
  CATALOGUE,
  ERROR_EVENT_ASL_NAMES,
  STEP_TIMEOUT_INPUT,
  activitySpec,
  aslErrorName,
  listErrorNames,
  type InputType,
} from '../../../statemachines/catalogue.js';

/** Every activity the spec names, by its spec name. */
const SPEC_ACTIVITIES = [
  'Start Passcode Registration',
  'Passcode Authentication Form',
  'Complete Passcode Registration',
  'Deregister Passcode',
  'Add User',
  'Get User',
  'Archive Process Instance',
  'Svc Push Notification',
  'Wait on Push Notification',
  'External Source Face Upload v1',
  'Execute Cloud Function v2',
  'External Source Face Match v1',
  'Capture Face Image',
  'Simple Decider',
];

/** The spec's Events table, verbatim. */
const SPEC_ERROR_EVENTS: Record<string, string[]> = {
  'Add User': ['Failed to add the user', 'ExtId Not Unique'],
  // The family's document steps, by the error codes of its real exports (issue 30).
  'Document Quality Assessment': ['Failed Document Quality'],
  // The family's face steps (issue 31).
  'Face Quality Assessment': ['Failed Face Quality'],
  'Face Liveness': ['Failed Face Liveness', 'Exceed Failed Liveness Count'],
  'Face Template Generation': ['Failed Template Generation'],
  // Ours: the way out of the active liveness challenge (Offer Another Way).
  'Capture Face Image': ['Liveness Challenge Declined'],
  'Document Processor': ['Failed Document Processing', 'Exceeded Failed Document Processor'],
  'Document to Face Matching': ['Failed Document Face Matching', 'Exceeded Failed Document Face Matching'],
  'Screen Replay Detection': ['Failed Screen Replay', 'Exceeded Failed Screen Replay'],
  'Black and White Copy Detection': ['Failed Document Black And White Detection', 'Exceeded Failed Document Bnw Copy Detection'],
  'Color Copy Detection': ['Failed Document Color Copy', 'Exceeded Failed Document Color Copy Detection'],
  'Paper Copy Detection': ['Failed Paper Copy', 'Exceeded Failed Paper Copy'],
  'Portrait Substitution Detection': ['Failed Portrait Substitution', 'Exceeded Failed Portrait Substitution'],
  'Photo Substitution Detection': ['Failed Photo Substitution Detection', 'Exceeded Failed Document Photo Sub Detection'],
  'External Source Face Match v1': ['Exceed face match count', 'Failed face to face match', 'Failed face template generation'],
  'Archive Process Instance': ['Configuration Exception'],
  'Svc Push Notification': ['No Valid Destinations Available', 'No Destinations Available', 'Other Error'],
  'Wait on Push Notification': ['Push Notification Process Failed', 'Push Notification Process Timed Out', 'Timeout', 'Other Error'],
  // Not in the spec's table: the family's data form options (issue 10, item 6).
  'Data Form': ['Max Attempts Exceeded', 'Retake'],
  // Not in the spec's table: where a function's error, timeout or missing version or secret goes (issue 13, item 3),
  // and the family's one code for all four.
  'Execute Cloud Function v2': ['Function Error', 'Function Timeout', 'Function Not Found', 'Cloud Secret Missing', 'Failed Sync Rule Execution'],
  // The family's v1: the same task as v2, its same events.
  'Execute Cloud Function v1': ['Function Error', 'Function Timeout', 'Function Not Found', 'Cloud Secret Missing', 'Failed Sync Rule Execution'],
  // Not in the spec: the service's own watchlist step (issue 14, item 5).
  'Watchlist Match': ['Watchlist Hit', 'Watchlist Not Found', 'Failed face template generation'],
  // The service's own (not a spec activity): notifies one webhook.
  'Send Webhook': ['Webhook Not Found'],
};

/**
 * The spec's input tables (name, type, required, default). `rule` marks an input the spec calls
 * mandatory that a cross-input rule governs instead ("title/message or localized keys").
 */
type Row = [name: string, type: InputType, required: boolean | 'rule', defaultValue?: unknown];
const SPEC_INPUTS: Record<string, Row[]> = {
  'Start Passcode Registration': [
    ['Passcode Registration Key', 'S', true, 'passcodeReg1'],
    ['Passcode Key', 'S', true],
    ['Store Name', 'S', true],
    ['User External ID', 'S', false],
    ['User ID', 'S', false],
    ['User Key', 'S', true, 'user1'],
  ],
  'Passcode Authentication Form': [
    ['Data form name', 'S', true],
    ['Data form version', 'I', true, 1],
    ['Form data Key', 'S', true, 'passcodeRegForm1'],
    ['Passcode Registration Key', 'S', true, 'passcodeReg1'],
    ['Starting Component ID', 'S', true, 'passcode-registration'],
    ['UI Component ID', 'S', true, 'passcode-registration'],
  ],
  'Complete Passcode Registration': [
    ['Passcode Registration Browser Response', 'S', false],
    ['Passcode Registration Key', 'S', true, 'passcodeReg1'],
  ],
  'Deregister Passcode': [
    ['Passcode Policy', 'S', true, 'passcodeAuth1'],
    ['Store Name', 'S', true],
    ['User External ID', 'S', false],
    ['User ID', 'S', false],
    ['User Key', 'S', true, 'user1'],
  ],
  'Get User': [
    ['Store Name', 'S', true],
    ['User External ID', 'S', false],
    ['User ID', 'S', false],
    ['User Key', 'S', true, 'user1'],
  ],
  'Add User': [
    ['External ID', 'S', true],
    ['Store Name', 'S', true],
  ],
  'Archive Process Instance': [
    ['Archive Key', 'S', true, 'archiveKey1'],
    ['Archive Policy Name', 'S', true],
    ['Archive Policy Version', 'I', true],
    ['Cloud Secrets', 'L', false],
    ['Process Variables', 'L', false],
  ],
  'Svc Push Notification': [
    ['Title', 'S', 'rule'],
    ['Message', 'S', 'rule'],
    ['Localized Title Key', 'S', false],
    ['Localized Message Key', 'S', false],
    ['Localized Title Arguments', 'L', false],
    ['Localized Message Arguments', 'L', false],
    ['Monitor Push Notification Process', 'B', false, true],
    ['Push Notification Parameters', 'M', false],
    ['Push Notification Process Definition Name', 'S', false],
    ['Push Notification Process Definition Tag', 'S', false],
    ['Push Notification Process Parameters', 'M', false],
    ['Relying Party ID', 'S', true],
    ['Retry Hint Duration (Seconds)', 'I', false, 60],
    ['Store Name', 'S', true],
    ['Time To Live (Seconds)', 'I', true],
    ['User External ID', 'S', false],
    ['User ID', 'S', false],
    ['User Key', 'S', false],
  ],
  'Wait on Push Notification': [
    ['List of Screens', 'L', false, ['wait-init']],
    ['Polling Error Retry Count', 'I', false, 5],
    ['Polling Interval (ms)', 'I', false, 500],
    ['Polling URL', 'S', true, '${_pollingUrl}'],
    ['Starting Component ID', 'S', false, 'push-notification-wait'],
    ['UI Component ID', 'S', false, 'wait-init'],
  ],
  'External Source Face Upload v1': [['Output Variable', 'S', true, 'uploadURL']],
  // Function Version may be empty (the latest active version) and the family's other inputs are added (issue 13, item 3).
  'Execute Cloud Function v2': [
    ['Function Name', 'S', false],
    ['Function Version', 'I', false],
    ['Process Variables', 'L', false],
    ['Cloud Secrets', 'L', false],
    ['Metrics', 'B', false, false],
    ['Allowed Metrics', 'L', false],
    ['Report Log', 'B', false, true],
    ['Rule Execution Name', 'S', false],
  ],
  'External Source Face Match v1': [['Max Attempts', 'I', false]],
};

const byName = (displayName: string) => CATALOGUE.find((a) => a.displayName === displayName);

describe('CATALOGUE', () => {
  it('has every activity the spec names, and a Data Form', () => {
    for (const name of [...SPEC_ACTIVITIES, 'Data Form']) expect(byName(name), name).toBeDefined();
  });

  it('gives each activity a stable, unique type id', () => {
    expect(new Set(ACTIVITY_TYPES).size).toBe(CATALOGUE.length);
    for (const type of ACTIVITY_TYPES) expect(type).toMatch(/^[A-Z][A-Z0-9_]*$/);
    expect(byName('Start Passcode Registration')?.type).toBe('START_PASSCODE_REGISTRATION');
    expect(byName('Simple Decider')?.type).toBe('SIMPLE_DECIDER');
  });

  it('has the spec inputs with their types, required flags and defaults', () => {
    for (const [activity, rows] of Object.entries(SPEC_INPUTS)) {
      const spec = byName(activity)!;
      for (const [name, type, required, defaultValue] of rows) {
        const input = spec.inputs.find((i) => i.name === name);
        expect(input, `${activity} / ${name}`).toBeDefined();
        expect(input!.type, `${activity} / ${name}`).toBe(type);
        if (required !== 'rule') expect(input!.required, `${activity} / ${name}`).toBe(required);
        if (defaultValue !== undefined) expect(input!.default, `${activity} / ${name}`).toEqual(defaultValue);
      }
    }
  });

  it('has exactly the spec error events (and the data form\'s), and no other activity has any', () => {
    for (const spec of CATALOGUE) {
      expect(spec.errorEvents.map((e) => e.name), spec.displayName).toEqual(SPEC_ERROR_EVENTS[spec.displayName] ?? []);
    }
  });

  it('names the spec outputs of Svc Push Notification', () => {
    const outputs = byName('Svc Push Notification')!.outputs.map((o) => o.variable);
    expect(outputs).toContain('vars.pollingUrl');
    expect(outputs).toContain('vars.pnRedirectUrl');
  });

  it('gives user steps a bounded step timeout and the rest none', () => {
    for (const spec of CATALOGUE) {
      const timeout = spec.inputs.find((i) => i.name === STEP_TIMEOUT_INPUT);
      if (spec.kind === 'user') {
        // The back office's wait has the longest by default: a review takes days, not minutes.
        const fallback = spec.type === 'REVIEW_FROM_BACK_OFFICE' ? 2_419_200 : 1800;
        expect(timeout, spec.displayName).toMatchObject({ type: 'I', default: fallback, min: 60, max: 2_419_200, references: false });
      } else {
        expect(timeout, spec.displayName).toBeUndefined();
      }
    }
    expect(CATALOGUE.filter((a) => a.kind === 'user').map((a) => a.displayName).sort()).toEqual([
      'Capture Additional Document v3',
      'Capture Document Image',
      'Capture Face Image',
      'Custom Page',
      'Data Form',
      'Generic User Task',
      'Passcode Authentication Form',
      'Passkey Authentication',
      'Passkey Registration',
      'Select Additional Document Type V2',
      'Select Document Type',
      'Switch Device',
      'Wait on Push Notification',
      'Waiting for B/O review',
      'Waiting for Resume',
    ]);
  });

  it('has the spec bounds: time to live 60..2419200, retry hint at most 1000', () => {
    const push = byName('Svc Push Notification')!;
    expect(push.inputs.find((i) => i.name === 'Time To Live (Seconds)')).toMatchObject({ min: 60, max: 2_419_200 });
    const retry = push.inputs.find((i) => i.name === 'Retry Hint Duration (Seconds)')!;
    expect(retry.max).toBe(1000);
    expect(retry.min).toBeUndefined();
  });

  it('names only inputs it has in its rules', () => {
    for (const spec of CATALOGUE) {
      const names = new Set(spec.inputs.map((i) => i.name));
      for (const rule of spec.rules) {
        const used = rule.kind === 'groups' ? rule.groups.flat() : [rule.input, rule.requires];
        for (const name of used) expect(names.has(name), `${spec.displayName}: ${name}`).toBe(true);
      }
    }
  });

  it('names each activity as the family\'s designer does, so that every parameter of a real export finds one input', () => {
    for (const a of CATALOGUE) {
      expect(a.family.beans.length, a.type).toBeGreaterThan(0);
      const names = a.inputs.flatMap((i) => (i.family?.name !== undefined ? [i.family.name] : []));
      expect(new Set(names).size, `${a.type}: family names are unique`).toBe(names.length);
      // A label matches one input: the family's label of one is never another's name or label (nor its own, but for case or spacing, which match anyway).
      const labels = a.inputs.flatMap((i) => [i.name, ...(i.family?.label !== undefined ? [i.family.label] : [])].map((l) => l.toLowerCase().replace(/\s+/g, ' ')));
      expect(new Set(labels).size, `${a.type}: labels are unique`).toBe(labels.length);
      if (a.family.endBean !== undefined) expect(a.kind, `${a.type}: only a user step has an end listener`).toBe('user');
      // Mostly five capitals and two digits (`CDF01`); the Regula processor's is `DPREG7102`.
      if (a.family.palette !== undefined) expect(a.family.palette).toMatch(/^[A-Z]{2,5}\d{2}(\d{2})?$/);
    }
    // Known from the family's real exports.
    expect(activitySpec('DATA_FORM')?.family).toEqual({ displayName: 'Custom Data Form', palette: 'CDF01', beans: ['customDataFormV1'], endBean: 'customDataFormWriterV1' });
    expect(activitySpec('EXECUTE_CLOUD_FUNCTION_V2')?.inputs.map((i) => i.family?.name)).toEqual(['functionName', 'functionVersion', 'processVariables', 'cloudSecrets', undefined, 'cloudFunctionAllowedMetrics', undefined, undefined]);
  });

  it('is plain JSON and matches its snapshot', async () => {
    const json = JSON.stringify(CATALOGUE, null, 2);
    expect(JSON.parse(json)).toEqual(CATALOGUE);
    await expect(`${json}\n`).toMatchFileSnapshot('./__snapshots__/catalogue.json');
  });
});

describe('ERROR_EVENT_ASL_NAMES', () => {
  it('maps every error event to an ASL error name that Step Functions does not reserve', () => {
    for (const spec of CATALOGUE) {
      for (const event of spec.errorEvents) {
        expect(ERROR_EVENT_ASL_NAMES[spec.type]?.[event.name]).toBe(event.aslError);
        expect(event.aslError).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
        expect(event.aslError.startsWith('States.')).toBe(false);
      }
    }
  });

  it('gives stable names', () => {
    expect(aslErrorName('ADD_USER', 'ExtId Not Unique')).toBe('ExtIdNotUnique');
    expect(aslErrorName('ADD_USER', 'Failed to add the user')).toBe('AddUserFailed');
    expect(aslErrorName('WAIT_ON_PUSH_NOTIFICATION', 'Timeout')).toBe('PushWaitTimeout');
    expect(aslErrorName('SVC_PUSH_NOTIFICATION', 'Other Error')).toBe('PushNotificationOtherError');
    expect(aslErrorName('WAIT_ON_PUSH_NOTIFICATION', 'Other Error')).toBe('PushWaitOtherError');
    expect(aslErrorName('GET_USER', 'Timeout')).toBeUndefined();
  });

  it('catches the step timeout on the wait step\'s Timeout event', () => {
    const wait = activitySpec('WAIT_ON_PUSH_NOTIFICATION')!;
    expect(wait.errorEvents.find((e) => e.name === 'Timeout')?.alsoCatches).toEqual(['States.Timeout']);
  });
});

describe('listErrorNames', () => {
  it('lists every ASL error name once, sorted', () => {
    const names = listErrorNames();
    expect(names).toEqual([...names].sort());
    expect(names).toHaveLength(43);
    expect(names).toContain('CloudFunctionTimeout');
    expect(names).toContain('DataFormRetake');
    expect(names).toContain('ExtIdNotUnique');
    expect(names).toContain('FaceMatchCountExceeded');
    expect(names).not.toContain('States.Timeout');
  });
});
