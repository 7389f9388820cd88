import { describe, expect, it } from 'vitest';
import { cfOutcome, countersOf, writeBack } from '../../../functions/cloud-functions/family-results.js';

describe("a Python function's results, written back as the family reads them", () => {
  it('sets executionVariables, keeps results where gateways and forms read them, and touches nothing else', () => {
    const vars = { idv: { attempt: 1 }, other: 'kept', cloudFunctions: { ruleExecutionResults: { verifyPhone: { ruleResults: { pass: false } } } } };
    const results = { pass: true, doc: { documentNumber: 'X123' }, executionVariables: { idv: { attempt: 2, verified: true } }, cfResults: { outcome: 'APPROVE' } };
    const next = writeBack(vars, results, { functionName: 'DocumentParseV6', ruleExecutionName: 'verifyEmail' });
    expect(next.idv).toEqual({ attempt: 2, verified: true });
    expect(next.other).toBe('kept');
    // The gateway's `${cloudFunctions.ruleExecutionResults.verifyEmail.ruleResults["pass"]}`, an earlier run kept.
    expect(next.cloudFunctions).toEqual({ ruleExecutionResults: { verifyPhone: { ruleResults: { pass: false } }, verifyEmail: { ruleResults: results } } });
    // The form's `{{processvar._checks.cloudFunctions.DocumentParseV6.metaData.ruleResults.doc.documentNumber }}`.
    expect(next._checks).toEqual({ cloudFunctions: { DocumentParseV6: { outcome: 'APPROVE', valid: true, metaData: { ruleResults: results } } } });
    expect(vars.idv).toEqual({ attempt: 1 });
  });

  it("keeps a check the function added to _checks (the family's extensible checks), beside its own", () => {
    const vars = { _checks: { face: { outcome: 'PASS' } } };
    const results = { executionVariables: { _checks: { face: { outcome: 'PASS' }, newCheck: { check1: { outcome: 'PASS', valid: true } } } } };
    const next = writeBack(vars, results, { functionName: 'Checks' });
    expect(next._checks).toEqual({
      face: { outcome: 'PASS' },
      newCheck: { check1: { outcome: 'PASS', valid: true } },
      cloudFunctions: { Checks: { valid: true, metaData: { ruleResults: results } } },
    });
    expect(next.cloudFunctions).toBeUndefined();
  });

  it('sets a variable named __proto__ as a variable, never as the prototype; ignores an executionVariables that is not a dict', () => {
    const next = writeBack({}, JSON.parse('{"executionVariables": {"__proto__": {"polluted": true}}}'), { functionName: 'f' });
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(Object.hasOwn(next, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(writeBack({ a: 1 }, { executionVariables: ['a', 2] }, { functionName: 'f' })).sort()).toEqual(['_checks', 'a']);
  });

  it("reads the run's cfResults outcome, when it gave one", () => {
    expect(cfOutcome({ cfResults: { outcome: 'DECLINE' } })).toBe('DECLINE');
    expect(cfOutcome({ cfResults: 'APPROVE' })).toBeUndefined();
    expect(cfOutcome({})).toBeUndefined();
  });

  it('counts the counters the step allows, with the family outcomes only', () => {
    const results = { metrics: { counters: { otpSent: 'passed', phoneCheck: 'APPROVE', notListed: 'passed', odd: 'maybe', num: 3 } } };
    expect(countersOf(results, ['otpSent', 'phoneCheck', 'odd', 'num'])).toEqual([
      ['otpSent', 'passed'],
      ['phoneCheck', 'approve'],
    ]);
    expect(countersOf(results, [])).toEqual([]);
    expect(countersOf({ metrics: 'x' }, ['otpSent'])).toEqual([]);
  });
});
