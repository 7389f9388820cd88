import { describe, expect, it } from 'vitest';
import { ALIASES } from '../../../functions/activities/specs/index.generated.js';
import { CATALOGUE } from '../../../statemachines/catalogue.js';
import { beanNameOf, resolveActivity } from '../../../statemachines/bpmn/activities.js';
import { isoDurationSeconds } from '../../../statemachines/bpmn/duration.js';
import { convertInputValue } from '../../../statemachines/bpmn/inputs.js';

describe('convertInputValue', () => {
  it('reads INTEGER text and the designer\'s ${60} literal as numbers', () => {
    expect(convertInputValue('INTEGER', { text: '60' })).toEqual({ value: 60 });
    expect(convertInputValue('INTEGER', { text: '${60}' })).toEqual({ value: 60 });
    expect(convertInputValue('INTEGER', { text: ' ${ -5 } ' })).toEqual({ value: -5 });
  });

  it('keeps any other ${...} as an expression string, whatever the type', () => {
    expect(convertInputValue('INTEGER', { text: '${maxAttempts}' })).toEqual({ value: '${maxAttempts}' });
    expect(convertInputValue('BOOLEAN', { text: '${isMobile}' })).toEqual({ value: '${isMobile}' });
    expect(convertInputValue('LIST_STRING', { text: '${screens}' })).toEqual({ value: '${screens}' });
    expect(convertInputValue('MAP_STRING', { text: '${parameters}' })).toEqual({ value: '${parameters}' });
    expect(convertInputValue('STRING', { text: '${externalId}' })).toEqual({ value: '${externalId}' });
  });

  it('refuses INTEGER text that is no integer, or too large to be exact', () => {
    for (const text of ['1.5', 'five', '${60', '60}', '9007199254740993'])
      expect(convertInputValue('INTEGER', { text }), text).toHaveProperty('problem');
  });

  it('reads BOOLEAN true and false, bare or in ${}', () => {
    expect(convertInputValue('BOOLEAN', { text: 'true' })).toEqual({ value: true });
    expect(convertInputValue('BOOLEAN', { text: '${false}' })).toEqual({ value: false });
    expect(convertInputValue('BOOLEAN', { text: 'yes' })).toHaveProperty('problem');
  });

  it('reads LIST_STRING from camunda:list and MAP_STRING from camunda:map, and refuses plain text for them', () => {
    expect(convertInputValue('LIST_STRING', { list: ['a', '${b}'] })).toEqual({ value: ['a', '${b}'] });
    expect(convertInputValue('LIST_STRING', { list: [] })).toEqual({ value: [] });
    expect(convertInputValue('MAP_STRING', { map: { k: 'v' } })).toEqual({ value: { k: 'v' } });
    expect(convertInputValue('LIST_STRING', { text: 'a,b' })).toHaveProperty('problem');
    expect(convertInputValue('MAP_STRING', { text: 'k=v' })).toHaveProperty('problem');
    expect(convertInputValue('STRING', { list: ['a'] })).toHaveProperty('problem');
  });

  it('keeps STRING and ENUM text as written, and an empty parameter as null', () => {
    expect(convertInputValue('STRING', { text: ' spaced ' })).toEqual({ value: ' spaced ' });
    expect(convertInputValue('ENUM', { text: 'PNG' })).toEqual({ value: 'PNG' });
    expect(convertInputValue('INTEGER', {})).toEqual({ value: null });
  });
});

describe('isoDurationSeconds', () => {
  it('reads the durations real definitions use', () => {
    expect(isoDurationSeconds('PT4M30S')).toEqual({ seconds: 270 });
    expect(isoDurationSeconds('PT30M')).toEqual({ seconds: 1800 });
    expect(isoDurationSeconds('P5D')).toEqual({ seconds: 432_000 });
    expect(isoDurationSeconds('P1W')).toEqual({ seconds: 604_800 });
    expect(isoDurationSeconds('P1DT1H')).toEqual({ seconds: 90_000 });
    expect(isoDurationSeconds('PT1.5S')).toEqual({ seconds: 2 });
  });

  it('refuses years and months (no fixed length), expressions and what is not a duration', () => {
    for (const text of ['P1Y', 'P1M', 'P1Y2M', 'P', 'PT', 'P1DT', '30M', '${timeout}', 'PT30m'])
      expect(isoDurationSeconds(text), text).toHaveProperty('problem');
    expect(isoDurationSeconds('PT1M')).toEqual({ seconds: 60 });
  });
});

describe('resolveActivity', () => {
  it('finds the activity of the family\'s bean names', () => {
    expect(resolveActivity('captureFaceImageV1')).toBe('CAPTURE_FACE_IMAGE');
    expect(resolveActivity('customDataFormV1')).toBe('DATA_FORM');
    expect(resolveActivity('activityOutcomeDeciderV1')).toBe('SIMPLE_DECIDER');
    expect(resolveActivity('syncCloudFunctionExecutorV2')).toBe('EXECUTE_CLOUD_FUNCTION_V2');
    expect(resolveActivity('addUserV1')).toBe('ADD_USER');
  });

  it('finds nothing for other names, inherited properties included', () => {
    for (const name of ['captureFaceImageV2', 'CAPTURE_FACE_IMAGE', 'constructor', 'toString', '__proto__', ''])
      expect(resolveActivity(name), name).toBeUndefined();
  });

  it('gives every activity at least one bean name, each a camelCase name, with its version where the family gives one', () => {
    // The additional document decider carries none either (`${additionalCaptureDecider}`).
    const types = new Set(Object.values(ALIASES));
    expect(CATALOGUE.filter((a) => !types.has(a.type as never)).map((a) => a.type)).toEqual([]);
    // The family's review and pause beans carry no version in its real exports (`${reviewRequired}`, `${pauseInstance}`).
    const unversioned = new Set(['reviewRequired', 'writeReviewStatus', 'reviewFromBackOfficeStart', 'pauseInstance', 'waitResumeInstance', 'additionalCaptureDecider']);
    for (const bean of Object.keys(ALIASES)) expect(bean).toMatch(unversioned.has(bean) ? /^[a-z][A-Za-z0-9]*$/ : /^[a-z][A-Za-z0-9]*V\d+$/);
  });

  it('reads the bean name out of ${...} and #{...} only', () => {
    expect(beanNameOf('${captureFaceImageV1}')).toBe('captureFaceImageV1');
    expect(beanNameOf('#{addUserV1}')).toBe('addUserV1');
    expect(beanNameOf('${a.b}')).toBeUndefined();
    expect(beanNameOf('captureFaceImageV1')).toBeUndefined();
    expect(beanNameOf(undefined)).toBeUndefined();
  });
});
