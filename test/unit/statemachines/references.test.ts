import { describe, expect, it } from 'vitest';
import { isReference, literalValue, lookup, referencePath } from '../../../statemachines/references.js';
import { activitySpec } from '../../../statemachines/catalogue.js';
import { resolveReferences } from '../../../functions/activities/inputs.js';
import { resolveDateBound } from '../../../statemachines/definition.js';

const state = {
  instance: { tenantId: 't', processInstanceId: 'p' },
  parameters: { externalId: 'ext-1', firstName: 'Ada' },
  vars: { user1: { id: 'u-1' }, _pollingUrl: 'https://poll', firstName: 'Grace' },
  _checks: { face: { result: 'PASS' } },
};

describe('referencePath', () => {
  it('reads ${name} and ${a.b.c} and nothing else', () => {
    expect(referencePath('${externalId}')).toBe('externalId');
    expect(referencePath('${ _checks.face.result }')).toBe('_checks.face.result');
    expect(referencePath('${60}')).toBeUndefined();
    expect(referencePath('Hello ${firstName}')).toBeUndefined();
    expect(referencePath('${a b}')).toBeUndefined();
    expect(isReference('${_pollingUrl}')).toBe(true);
  });
});

describe('literalValue', () => {
  it('reads the designer literals ${60} and ${true}', () => {
    expect(literalValue('${60}')).toBe(60);
    expect(literalValue('${-1}')).toBe(-1);
    expect(literalValue('${true}')).toBe(true);
    expect(literalValue('${x}')).toBeUndefined();
  });
});

describe('lookup', () => {
  it('tries vars, then parameters, then the session root', () => {
    expect(lookup(state, 'firstName')).toBe('Grace');
    expect(lookup(state, 'externalId')).toBe('ext-1');
    expect(lookup(state, 'user1.id')).toBe('u-1');
    expect(lookup(state, '_checks.face.result')).toBe('PASS');
    expect(lookup(state, 'parameters.firstName')).toBe('Ada');
    expect(lookup(state, 'nothing.here')).toBeUndefined();
    expect(lookup(state, 'constructor')).toBeUndefined();
  });
});

describe('resolveReferences', () => {
  it('replaces references, leaves out what resolves to nothing, and never touches a form', () => {
    const form = { title: { values: { en: '${firstName}' } }, version: 1, components: [] };
    expect(
      resolveReferences(
        activitySpec('SVC_PUSH_NOTIFICATION')!,
        {
          'User External ID': '${externalId}',
          'Polling URL': '${_pollingUrl}',
          'Localized Title Arguments': ['${firstName}', 'plain'],
          'Push Notification Parameters': { who: '${user1.id}' },
          'User ID': '${missing}',
          'Time To Live (Seconds)': 300,
        },
        state,
      ),
    ).toEqual({
      'User External ID': 'ext-1',
      'Polling URL': 'https://poll',
      'Localized Title Arguments': ['Grace', 'plain'],
      'Push Notification Parameters': { who: 'u-1' },
      'Time To Live (Seconds)': 300,
    });
    expect(resolveReferences(activitySpec('DATA_FORM')!, { Form: form as never }, state)).toEqual({ Form: form });
  });
});

describe('resolveDateBound', () => {
  it('turns relative bounds into dates', () => {
    const today = new Date('2024-02-29T15:00:00Z');
    expect(resolveDateBound('today', today)).toBe('2024-02-29');
    expect(resolveDateBound('today-18y', today)).toBe('2006-02-28');
    expect(resolveDateBound('today-1m', new Date('2024-03-31T00:00:00Z'))).toBe('2024-02-29');
    expect(resolveDateBound('today+30d', today)).toBe('2024-03-30');
    expect(resolveDateBound('2000-01-31', today)).toBe('2000-01-31');
  });
});
