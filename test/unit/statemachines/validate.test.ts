import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../statemachines/validate.js';
import { EXAMPLES } from '../../../statemachines/examples/index.js';
import { expectRefused, pushFlow, refusal, single } from './fixtures.js';

const TTL = 'Time To Live (Seconds)';
const RETRY = 'Retry Hint Duration (Seconds)';
const at = (activity: string, input: string) => `activities.${activity}.inputs.${input}`;

describe('validateDefinition', () => {
  it('accepts both examples', () => {
    for (const [name, json] of Object.entries(EXAMPLES)) {
      expect(validateDefinition(structuredClone(json)).name).toBe(name);
    }
  });

  it('fills in defaults: retention, catalogue defaults, literal ${n} values', () => {
    const def = validateDefinition(pushFlow({ push: { [TTL]: '${300}' } }));
    expect(def.retentionDays).toBe(90);
    expect(def.description).toBe('');
    expect(def.activities.push!.inputs).toMatchObject({
      [TTL]: 300,
      [RETRY]: 60,
      'Monitor Push Notification Process': true,
      'User External ID': '${externalId}',
    });
    expect(def.activities.wait!.inputs).toEqual({
      'List of Screens': ['wait-init'],
      'Polling Error Retry Count': 5,
      'Polling Interval (ms)': 500,
      'Polling URL': '${_pollingUrl}',
      'Starting Component ID': 'push-notification-wait',
      'UI Component ID': 'wait-init',
      'Step Timeout (Seconds)': 1800,
    });
    expect(def.activities.decide!.inputs).toEqual({});
  });

  it('lists every problem, past a hundred, and its message counts them all', () => {
    // 150 activities of an unknown type, chained: one problem each.
    const activities = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`a${i}`, { type: 'TELEPORT', inputs: {}, ...(i < 149 ? { next: `a${i + 1}` } : {}) }]));
    const err = refusal({ name: 'many', version: 1, startActivityId: 'a0', activities });
    expect(err.details!.length).toBeGreaterThan(100);
    expect(err.message).toContain(`(${err.details!.length - 1} more problems in details)`);
    expect(new Set(err.details!.filter((d) => d.message.includes('TELEPORT')).map((d) => d.location.split('.')[1])).size).toBe(150);
  });

  it('keeps inputs in catalogue order and is idempotent', () => {
    const once = validateDefinition(pushFlow());
    expect(validateDefinition(once)).toEqual(once);
    expect(Object.keys(once.activities.push!.inputs)[0]).toBe('Title');
  });

  it('rejects when the time to live is below 60 or above 2419200, and takes both edges', () => {
    expectRefused(pushFlow({ push: { [TTL]: 59 } }), at('push', TTL), '"push"', TTL, 'at least 60');
    expectRefused(pushFlow({ push: { [TTL]: 2_419_201 } }), at('push', TTL), '"push"', TTL, 'at most 2419200');
    expect(validateDefinition(pushFlow({ push: { [TTL]: 60 } })).activities.push!.inputs[TTL]).toBe(60);
    expect(validateDefinition(pushFlow({ push: { [TTL]: 2_419_200 } })).activities.push!.inputs[TTL]).toBe(2_419_200);
  });

  it('rejects when the retry hint is above 1000, and takes 1000, 0 and negatives', () => {
    expectRefused(pushFlow({ push: { [RETRY]: 1001 } }), at('push', RETRY), '"push"', RETRY, 'at most 1000');
    for (const v of [1000, 0, -5]) expect(validateDefinition(pushFlow({ push: { [RETRY]: v } })).activities.push!.inputs[RETRY]).toBe(v);
  });

  it('rejects when both a title/message and localized keys are given', () => {
    const err = expectRefused(
      pushFlow({ push: { 'Localized Title Key': 't', 'Localized Message Key': 'm' } }),
      at('push', 'Localized Title Key'),
      '"push"',
      '"Title" and "Message"',
      '"Localized Title Key" and "Localized Message Key"',
      'not both',
    );
    expect(err.message).toContain('activities.push.inputs.Localized Title Key');
  });

  it('rejects when neither a title/message nor localized keys are given', () => {
    expectRefused(pushFlow({ drop: ['Title', 'Message'] }), at('push', 'Title'), '"push"', '"Localized Title Key"', 'none is given');
  });

  it('rejects when only half of the title/message pair is given', () => {
    expectRefused(pushFlow({ drop: ['Message'] }), at('push', 'Message'), '"push"', '"Message" is required with "Title"');
  });

  it('takes localized keys instead of title/message', () => {
    const def = pushFlow({
      drop: ['Title', 'Message'],
      push: { 'Localized Title Key': 't', 'Localized Message Key': 'm', 'Localized Title Arguments': ['a'] },
    });
    expect(validateDefinition(def).activities.push!.inputs['Localized Title Arguments']).toEqual(['a']);
  });

  it('rejects when localized arguments come without their key', () => {
    expectRefused(
      pushFlow({ push: { 'Localized Message Arguments': ['x'] } }),
      at('push', 'Localized Message Key'),
      '"push"',
      '"Localized Message Arguments"',
    );
  });

  it('rejects when both a child definition name+version and a tag are given', () => {
    expectRefused(
      pushFlow({ push: { 'Push Notification Process Definition Tag': 'live' } }),
      at('push', 'Push Notification Process Definition Tag'),
      '"push"',
      'not both',
    );
  });

  it('rejects when neither a child definition name+version nor a tag is given', () => {
    expectRefused(
      pushFlow({ drop: ['Push Notification Process Definition Name', 'Push Notification Process Definition Version'] }),
      at('push', 'Push Notification Process Definition Name'),
      '"push"',
      'none is given',
    );
    expect(
      validateDefinition(
        pushFlow({
          drop: ['Push Notification Process Definition Name', 'Push Notification Process Definition Version'],
          push: { 'Push Notification Process Definition Tag': 'live' },
        }),
      ).activities.push!.inputs['Push Notification Process Definition Tag'],
    ).toBe('live');
  });

  it('rejects when the child definition name comes without its version', () => {
    expectRefused(
      pushFlow({ drop: ['Push Notification Process Definition Version'] }),
      at('push', 'Push Notification Process Definition Version'),
      '"push"',
      'required with "Push Notification Process Definition Name"',
    );
  });

  it('rejects when a push names its user twice or not at all', () => {
    expectRefused(pushFlow({ push: { 'User ID': 'u-1' } }), at('push', 'User External ID'), '"push"', '"User Key"', 'only one of');
    expectRefused(pushFlow({ drop: ['User External ID'] }), at('push', 'User Key'), '"push"', 'none is given');
  });

  it('rejects when Get User has neither or both of User ID and User External ID', () => {
    expectRefused(single('GET_USER', { 'Store Name': 's' }), at('a', 'User ID'), '"a" (Get User)', 'none is given');
    expectRefused(
      single('GET_USER', { 'Store Name': 's', 'User ID': 'u', 'User External ID': 'e' }),
      at('a', 'User External ID'),
      '"a" (Get User)',
      'not both',
    );
    expect(validateDefinition(single('GET_USER', { 'Store Name': 's', 'User ID': 'u' })).activities.a!.inputs['User Key']).toBe('user1');
  });

  it('rejects when Start Passcode Registration has both User ID and User External ID, and takes the user key alone', () => {
    const base = { 'Passcode Key': 'p', 'Store Name': 's' };
    expectRefused(
      single('START_PASSCODE_REGISTRATION', { ...base, 'User ID': 'u', 'User External ID': 'e' }),
      at('a', 'User External ID'),
      'Start Passcode Registration',
      'at most one of',
    );
    expect(validateDefinition(single('START_PASSCODE_REGISTRATION', base)).activities.a!.inputs).toMatchObject({
      'User Key': 'user1',
      'Passcode Registration Key': 'passcodeReg1',
    });
  });

  it('rejects when Add User lacks its External ID or Store Name', () => {
    expectRefused(single('ADD_USER', { 'Store Name': 's' }), at('a', 'External ID'), '"a" (Add User)', 'required input "External ID" is missing');
    expectRefused(single('ADD_USER', { 'External ID': '${externalId}' }), at('a', 'Store Name'), '"a" (Add User)', '"Store Name"');
  });

  it('rejects an unknown input and lists the known ones', () => {
    expectRefused(pushFlow({ push: { Subject: 'x' } }), at('push', 'Subject'), '"push"', 'unknown input "Subject"', '"Title"');
  });

  it('rejects when an input has the wrong type', () => {
    expectRefused(pushFlow({ push: { [TTL]: '300' } }), at('push', TTL), '"push"', TTL, 'an integer');
    expectRefused(pushFlow({ push: { [TTL]: 300.5 } }), at('push', TTL), 'an integer');
    expectRefused(pushFlow({ push: { 'Monitor Push Notification Process': 'yes' } }), at('push', 'Monitor Push Notification Process'), 'a boolean');
    expectRefused(pushFlow({ wait: { 'List of Screens': 'wait-init' } }), at('wait', 'List of Screens'), '"wait"', 'a list of strings');
    expectRefused(pushFlow({ push: { 'Push Notification Parameters': { a: 1 } } }), at('push', 'Push Notification Parameters'), 'a map of string to string');
    expectRefused(pushFlow({ push: { Title: 42 } }), at('push', 'Title'), 'a string');
  });

  it('rejects when a required input without default is missing', () => {
    expectRefused(pushFlow({ drop: ['Relying Party ID'] }), at('push', 'Relying Party ID'), '"push"', 'required input "Relying Party ID" is missing');
  });

  it('takes references where values are resolved at run time, and refuses malformed ones', () => {
    const def = validateDefinition(pushFlow({ push: { [TTL]: '${pushTtl}', 'Localized Title Arguments': '${args}', 'Localized Title Key': 't', 'Localized Message Key': 'm' }, drop: ['Title', 'Message'] }));
    expect(def.activities.push!.inputs[TTL]).toBe('${pushTtl}');
    expectRefused(pushFlow({ push: { Title: '${not valid}' } }), at('push', 'Title'), 'not a valid reference');
  });

  it('rejects when a key input is not a variable name', () => {
    expectRefused(single('GET_USER', { 'Store Name': 's', 'User ID': 'u', 'User Key': 'user 1' }), at('a', 'User Key'), 'variable name');
  });

  it('takes map keys as data, whatever they are named (the compiler sends inputs as JSON text)', () => {
    const keys = { 'x.$': '$.vars', constructor: 'c', toString: 't' };
    const def = validateDefinition(pushFlow({ push: { 'Push Notification Parameters': keys } }));
    expect(def.activities.push!.inputs['Push Notification Parameters']).toEqual(keys);
  });

  it('rejects a step timeout below 60, above 28 days, or given as a reference', () => {
    const STEP = 'Step Timeout (Seconds)';
    expectRefused(pushFlow({ wait: { [STEP]: 59 } }), at('wait', STEP), '"wait"', 'at least 60');
    expectRefused(pushFlow({ wait: { [STEP]: 2_419_201 } }), at('wait', STEP), 'at most 2419200');
    expectRefused(pushFlow({ wait: { [STEP]: '${t}' } }), at('wait', STEP), 'not a reference');
    expect(validateDefinition(pushFlow({ wait: { [STEP]: 60 } })).activities.wait!.inputs[STEP]).toBe(60);
  });

  it('rejects an unknown activity type and lists the known ones', () => {
    expectRefused(single('SEND_EMAIL', {}), 'activities.a.type', '"a"', 'unknown activity type "SEND_EMAIL"', 'GET_USER');
  });

  it('rejects when next names an activity that does not exist', () => {
    const def = pushFlow();
    (def.activities as Record<string, Record<string, unknown>>).wait!.next = 'nowhere';
    expectRefused(def, 'activities.wait.next', '"wait"', '"nowhere" does not exist');
  });

  it('rejects when an error event routes to an activity that does not exist', () => {
    const def = pushFlow();
    (def.activities as Record<string, Record<string, unknown>>).push!.errorEvents = { 'Other Error': 'nowhere' };
    expectRefused(def, 'activities.push.errorEvents.Other Error', '"push"', '"Other Error"', '"nowhere"');
  });

  it('rejects when the start activity does not exist', () => {
    expectRefused({ ...pushFlow(), startActivityId: 'begin' }, 'startActivityId', '"begin"');
  });

  it('rejects an error event the activity type does not have', () => {
    const def = pushFlow();
    (def.activities as Record<string, Record<string, unknown>>).push!.errorEvents = { 'ExtId Not Unique': 'decide' };
    expectRefused(def, 'activities.push.errorEvents.ExtId Not Unique', '"push"', 'unknown error event', '"No Destinations Available"');
  });

  it('rejects an activity unreachable from the start', () => {
    const def = pushFlow({ activities: { orphan: { type: 'GET_USER', inputs: { 'Store Name': 's', 'User ID': 'u' }, next: 'decide' } } });
    expectRefused(def, 'activities.orphan', '"orphan"', 'not reachable from the start node "push"');
  });

  it('takes a loop of service steps (bounded when it runs by the journey step limit), and refuses a loop of gateways only', () => {
    const def = pushFlow();
    (def.activities as Record<string, Record<string, unknown>>).push!.errorEvents = { 'Other Error': 'push' };
    expect(validateDefinition(def).activities.push!.errorEvents).toEqual({ 'Other Error': 'push' });

    const two = {
      name: 'loop',
      version: 1,
      startActivityId: 'a',
      activities: {
        a: { type: 'GET_USER', inputs: { 'Store Name': 's', 'User ID': 'u' }, next: 'g' },
        b: { type: 'ADD_USER', inputs: { 'Store Name': 's', 'External ID': 'e' }, next: 'end', errorEvents: { 'ExtId Not Unique': 'a' } },
        end: { type: 'SIMPLE_DECIDER', rules: [{ when: { errorEvent: true }, outcome: 'FAIL' }], default: 'PASS' },
      },
      gateways: {
        g: { branches: [{ when: '${x}', next: 'h' }], default: 'b' },
        h: { branches: [{ when: '${y}', next: 'g' }], default: 'b' },
      },
    };
    expect(() => validateDefinition({ ...two, gateways: { g: { branches: [{ when: '${x}', next: 'b' }], default: 'b' } } })).not.toThrow();
    expectRefused(two, 'gateways.g.branches.0.next', '"g" → "h" → "g"', 'loop of gateways and deciders only');
  });

  it('takes a loop that goes through a user step', () => {
    const def = pushFlow();
    (def.activities as Record<string, Record<string, unknown>>).wait!.errorEvents = { Timeout: 'push', 'Other Error': 'decide' };
    expect(validateDefinition(def).activities.wait!.errorEvents).toEqual({ Timeout: 'push', 'Other Error': 'decide' });
  });

  it('rejects a flow with no way to an end', () => {
    const form = (next: string) => ({ type: 'CAPTURE_FACE_IMAGE', next });
    const def = { name: 'trap', version: 1, startActivityId: 'a', activities: { a: form('b'), b: form('a') } };
    expectRefused(def, 'activities.a', '"a"', 'no path from here reaches an end');
  });

  it('rejects a decider without rules or default, with next, or with inputs', () => {
    expectRefused(single('SIMPLE_DECIDER', {}), 'activities.a.rules', '"a" (Simple Decider)', 'needs rules');
    expectRefused(single('SIMPLE_DECIDER', {}), 'activities.a.default', 'needs a default outcome');
    const decider = (extra: Record<string, unknown>) => ({
      name: 'd',
      version: 1,
      startActivityId: 'd',
      activities: { d: { type: 'SIMPLE_DECIDER', rules: [{ when: { errorEvent: true }, outcome: 'FAIL' }], default: 'PASS', ...extra } },
    });
    expectRefused(decider({ next: 'd' }), 'activities.d.next', 'ends the journey');
    expectRefused(decider({ inputs: { Rules: 'x' } }), 'activities.d.inputs.Rules', 'unknown input "Rules"');
    expect(validateDefinition(decider({})).activities.d!.default).toBe('PASS');
  });

  it('rejects rules and default on an activity that is not a decider', () => {
    const def = single('CAPTURE_FACE_IMAGE', {});
    (def.activities as Record<string, Record<string, unknown>>).a!.default = 'PASS';
    expectRefused(def, 'activities.a.default', '"a" (Capture Face Image)', 'only a Simple Decider');
  });

  it('rejects decider rules that are not well-formed', () => {
    const decider = (when: unknown) => ({
      name: 'd',
      version: 1,
      startActivityId: 'add',
      activities: {
        add: { type: 'ADD_USER', inputs: { 'Store Name': 's', 'External ID': 'e' }, next: 'd', errorEvents: { 'ExtId Not Unique': 'd' } },
        d: { type: 'SIMPLE_DECIDER', rules: [{ when, outcome: 'FAIL' }], default: 'PASS' },
      },
    });
    expectRefused(decider({ variable: '_checks.face result', equals: 'PASS' }), 'activities.d.rules.0.when.variable', 'dot-separated path');
    expectRefused(decider({ variable: 'a', equals: 'PASS', isPresent: true }), 'activities.d.rules.0.when', 'must be one condition');
    expectRefused(decider({ errorEvent: { activity: 'nope', name: 'ExtId Not Unique' } }), 'activities.d.rules.0.when.errorEvent.activity', '"d"', '"nope"');
    expectRefused(decider({ errorEvent: { activity: 'add', name: 'Timeout' } }), 'activities.d.rules.0.when.errorEvent.name', '"add" (Add User)', 'no error event "Timeout"');
    expectRefused(decider({ all: [{ any: [{ not: { all: [{ not: { errorEvent: true } }] } }] }] }), 'activities.d.rules.0.when.all.0.any.0.not.all.0.not', 'nest at most 5');
    const rule = { outcome: 'FAIL', when: { any: [{ errorEvent: { activity: 'add', name: 'ExtId Not Unique' } }, { variable: 'vars.user1.id', isPresent: false }] } };
    expect(validateDefinition(decider(rule.when)).activities.d!.rules).toEqual([rule]);
  });

  it('rejects a data form that is not valid, naming the component', () => {
    const form = (components: unknown[]) => single('DATA_FORM', { Form: { title: { values: { en: 'T' } }, version: 1, components } });
    const label = { values: { en: 'L' } };
    expectRefused(
      form([{ type: 'textfield', id: 'a', label }, { type: 'textfield', id: 'b', label, default: '{{processvar.a..b}}' }]),
      'activities.a.inputs.Form.components.1.default',
      '"a" (Data Form)',
      'input "Form"',
      '{{processvar.a.b.c}}',
    );
    expectRefused(form([{ type: 'radio', id: 'r', label, values: { en: 'Yes' } }]), 'activities.a.inputs.Form.components.0.values', 'list of choices');
    expectRefused(
      form([{ type: 'textfield', id: 'a', label, validate: { minLength: 5, maxLength: 2 } }]),
      'activities.a.inputs.Form.components.0.validate.minLength',
      'greater than maxLength',
    );
    expectRefused(form([{ type: 'date', id: 'd', label, validate: { minDate: 'today-18y', maxDate: 'today-120y' } }]), 'activities.a.inputs.Form.components.0.validate.minDate', 'after maxDate');
    expectRefused(form([{ type: 'video', id: 'v', label }]), 'activities.a.inputs.Form.components.0.type');
    expectRefused(form([{ type: 'image', id: 'i', src: 'javascript:alert(1)' }]), 'activities.a.inputs.Form.components.0.src', 'https URL');
    expectRefused(form([{ type: 'textfield', id: 't', validate: { pattern: '(' } }]), 'activities.a.inputs.Form.components.0.validate.pattern', 'regular expression');
    expectRefused(form([]), 'activities.a.inputs.Form.components', 'input "Form"', 'at least one component');
    expectRefused(single('DATA_FORM', { Form: 'my-form' }), 'activities.a.inputs.Form', 'a data form object');
  });

  it("takes a template input as the family writes it (text around expressions), and refuses one whose expression does not parse", () => {
    const family = '${idv.config._redirectUrl > "" ? idv.config._redirectUrl : "www.example.com"}&otpRefId=${idv.otp.otpRef}';
    expect(validateDefinition(single('REDIRECT_USER_V2', { 'Redirect URL': family })).activities.a!.inputs['Redirect URL']).toBe(family);
    expectRefused(single('REDIRECT_USER_V2', { 'Redirect URL': 'https://x/${a ==}' }), 'activities.a.inputs.Redirect URL', 'not a valid template');
  });

  it('takes a data form inline or by name and version, exactly one of the two', () => {
    const inline = { title: { values: { en: 'T' } }, components: [{ type: 'text', id: 'a', readOnly: 'true', layout: { col: 2 } }] };
    const ok = validateDefinition(single('DATA_FORM', { Form: inline }));
    // The family's format, loose: strings read as booleans, unknown members kept.
    expect(ok.activities.a!.inputs.Form).toMatchObject({ components: [{ readOnly: true, layout: { col: 2 } }] });
    expect(validateDefinition(single('DATA_FORM', { 'Data form name': 'applicant', 'Data form version': '${2}' })).activities.a!.inputs['Data form version']).toBe(2);
    expectRefused(single('DATA_FORM', {}), 'activities.a.inputs.Form', 'either "Form", or "Data form name"; none is given');
    expectRefused(single('DATA_FORM', { Form: inline, 'Data form name': 'applicant', 'Data form version': 1 }), 'activities.a.inputs.Data form name');
    // The family's empty Data form version: the latest active version when the step starts.
    expect(validateDefinition(single('DATA_FORM', { 'Data form name': 'applicant' })).activities.a!.inputs['Data form version']).toBeUndefined();
    expectRefused(single('DATA_FORM', { Form: inline, 'Data form version': 1 }), 'activities.a.inputs.Data form name', 'required when "Data form version" is given');
    expectRefused(single('DATA_FORM', { 'Data form name': 'applicant', 'Data form version': 0 }), 'activities.a.inputs.Data form version', 'at least 1');
    expectRefused(single('DATA_FORM', { Form: inline, 'Max Attempts': 0 }), 'activities.a.inputs.Max Attempts', 'at least 1');
  });

  it('rejects a definition whose fields break the shape', () => {
    const ok = pushFlow();
    expectRefused({ ...ok, name: 'bad/name' }, 'name', '1 to 100 characters');
    expectRefused({ ...ok, name: '' }, 'name');
    expectRefused({ ...ok, name: 'x'.repeat(101) }, 'name');
    expectRefused({ ...ok, version: 0 }, 'version');
    expectRefused({ ...ok, version: 1.5 }, 'version');
    expectRefused({ ...ok, retentionDays: 3651 }, 'retentionDays');
    expectRefused({ ...ok, retentionDays: 0 }, 'retentionDays');
    expectRefused({ ...ok, description: 'x'.repeat(256) }, 'description');
    expectRefused({ ...ok, extra: 1 }, 'definition', 'unknown field: extra');
    expectRefused({ ...ok, activities: {} }, 'activities', 'at least one activity');
    expectRefused({ ...ok, activities: { 'bad id': { type: 'GET_USER' } } }, 'activities.bad id', 'key must be 1 to 80 characters');
    expect(validateDefinition({ ...ok, retentionDays: 3650, name: 'Push approval_v2.0-beta' }).retentionDays).toBe(3650);
    expect(refusal('not an object').details?.[0]?.location).toBe('definition');
  });

  it('reports every problem at once, and summarises the first in the message', () => {
    const err = refusal(pushFlow({ push: { [TTL]: 10, [RETRY]: 5000, Subject: 'x' } }));
    expect(err.details?.map((d) => d.location).sort()).toEqual([at('push', RETRY), at('push', 'Subject'), at('push', TTL)].sort());
    expect(err.message).toMatch(/^The process definition is not valid\. activities\.push\.inputs\..+ \(2 more problems in details\)$/);
  });
});

describe('a capture judged by Face Liveness', () => {
  const flow = (capture: Record<string, unknown>, livenessKey = 'face1') => ({
    name: 'liveness',
    version: 1,
    startActivityId: 'capture',
    activities: {
      capture: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face1', ...capture }, next: 'liveness' },
      liveness: { type: 'CHECK_FACE_LIVENESS', inputs: { 'Face Key': livenessKey }, errorEvents: { 'Failed Face Liveness': 'capture' }, next: 'done' },
      done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
    },
  });
  const check = (def: unknown) => validateDefinition(def).activities.capture!.inputs['Liveness Check'];

  it('takes the active challenge when it names no Liveness Check (as the family files do)', () => {
    expect(check(flow({}))).toBe('ACTIVE');
    expect(check(flow({ 'Liveness Check': 'ACTIVE' }))).toBe('ACTIVE');
  });

  it('keeps PASSIVE as the default where no Face Liveness step judges its Face Key', () => {
    expect(check(flow({}, 'face2'))).toBe('PASSIVE');
    expect(check({ ...flow({}), activities: { ...flow({}).activities, liveness: { type: 'CHECK_FACE_QUALITY', inputs: { 'Face Key': 'face1' }, next: 'done' } } })).toBe('PASSIVE');
  });

  it('is refused when it says PASSIVE, naming the Face Liveness step', () => {
    const err = refusal(flow({ 'Liveness Check': 'PASSIVE' }));
    expect(err.details?.map((d) => d.location)).toEqual([at('capture', 'Liveness Check')]);
    expect(err.details?.[0]?.message).toContain('activity "liveness" (Face Liveness) judges Face Key "face1"');
  });
});
