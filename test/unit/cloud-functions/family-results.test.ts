import { describe, expect, it } from 'vitest';
import { cfOutcome, countersOf, writeBack } from '../../../functions/cloud-functions/family-results.js';

describe("a Python function's results, written back as the family reads them", () => {
  it('sets executionVariables, keeps results where gateways and forms read them, and touches nothing else', () => {
    const vars = { idv: { attempt: 1 }, other: 'kept', cloudFunctions: { ruleExecutionResults: { verifyPhone: { ruleResults: { pass: false } } } } };
    const checks = { face: { result: 'PASS' } };
    const results = { pass: true, doc: { documentNumber: 'X123' }, executionVariables: { idv: { attempt: 2, verified: true } }, cfResults: { outcome: 'APPROVE' } };
    const next = writeBack({ vars, _checks: checks }, results, { functionName: 'DocumentParseV6', ruleExecutionName: 'verifyEmail' });
    expect(next.vars.idv).toEqual({ attempt: 2, verified: true });
    expect(next.vars.other).toBe('kept');
    // The gateway's `${cloudFunctions.ruleExecutionResults.verifyEmail.ruleResults["pass"]}`, an earlier run kept.
    expect(next.vars.cloudFunctions).toEqual({ ruleExecutionResults: { verifyPhone: { ruleResults: { pass: false } }, verifyEmail: { ruleResults: results } } });
    // The form's `{{processvar._checks.cloudFunctions.DocumentParseV6.metaData.ruleResults.doc.documentNumber }}`: the session's checks.
    expect(next.checks).toEqual({ face: { result: 'PASS' }, cloudFunctions: { DocumentParseV6: { outcome: 'APPROVE', valid: true, metaData: { ruleResults: results } } } });
    expect(next.vars._checks).toBeUndefined();
    expect(vars.idv).toEqual({ attempt: 1 });
    expect(checks).toEqual({ face: { result: 'PASS' } });
  });

  it("takes the _checks the function set back (the family's extensible checks), with its own check beside them", () => {
    const results = { executionVariables: { _checks: { face: { result: 'PASS' }, newCheck: { check1: { outcome: 'PASS', valid: true } } } } };
    const next = writeBack({ vars: {}, _checks: { face: { result: 'PASS' } } }, results, { functionName: 'Checks' });
    expect(next.checks).toEqual({
      face: { result: 'PASS' },
      newCheck: { check1: { outcome: 'PASS', valid: true } },
      cloudFunctions: { Checks: { valid: true, metaData: { ruleResults: results } } },
    });
    expect(next.vars).toEqual({});
  });

  it('refuses the names the journey keeps for itself, and a _checks that is not a dict', () => {
    for (const name of ['instance', 'parameters', 'vars', '_decision', '_errors', '_lastError', '_end', '_faces']) {
      expect(() => writeBack({}, { executionVariables: { [name]: {} } }, { functionName: 'f' }), name).toThrow(/keeps for itself/);
    }
    expect(() => writeBack({}, { executionVariables: { _checks: 'PASS' } }, { functionName: 'f' })).toThrow(/_checks/);
  });

  it('sets a variable named __proto__ as a variable, never as the prototype; ignores an executionVariables that is not a dict', () => {
    const next = writeBack({}, JSON.parse('{"executionVariables": {"__proto__": {"polluted": true}}}'), { functionName: 'f' });
    expect(Object.getPrototypeOf(next.vars)).toBe(Object.prototype);
    expect(Object.hasOwn(next.vars, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(writeBack({ vars: { a: 1 } }, { executionVariables: ['a', 2] }, { functionName: 'f' }).vars).toEqual({ a: 1 });
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
