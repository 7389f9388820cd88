import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asArray, ofType, refId, statementsOf, synthesize, unacknowledgedNagFindings, type Synthesized } from './support.js';

describe('a deployment with tracing (-c tracing=true)', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({ tracing: 'true' }, { bundle: false });
  });
  afterAll(() => rmSync(synth.outdir, { recursive: true, force: true }));

  it('traces every function actively, with the Tracer layer, told to capture its AWS clients, allowed to send traces', () => {
    const layers = ofType(synth.template, 'AWS::Lambda::LayerVersion');
    const tracerLayer = Object.entries(layers).find(([, l]) => String(l.Properties.Description).includes('@aws-lambda-powertools/tracer'))?.[0];
    expect(tracerLayer).toBeDefined();
    const functions = Object.values(ofType(synth.template, 'AWS::Lambda::Function')).filter((f) => f.Properties.Runtime === 'nodejs22.x');
    expect(functions.length).toBeGreaterThan(60);
    for (const f of functions) {
      const at = f.Metadata?.['aws:cdk:path'];
      expect(f.Properties.TracingConfig, at).toEqual({ Mode: 'Active' });
      expect(f.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED, at).toBe('true');
      expect(asArray(f.Properties.Layers).map(refId), at).toContain(tracerLayer);
      const actions = statementsOf(synth.template, refId(f.Properties.Role)!).flatMap((s) => asArray(s.Action));
      expect(actions, at).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
    }
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });

  it('traces the state machines too: published with tracing on, their role allowed to send traces', () => {
    for (const f of Object.values(ofType(synth.template, 'AWS::Lambda::Function'))) {
      if (f.Properties.Environment.Variables.STATE_MACHINE_LOG_GROUP_ARN) expect(f.Properties.Environment.Variables.STATE_MACHINE_TRACING).toBe('true');
    }
    const [roleId] = Object.entries(ofType(synth.template, 'AWS::IAM::Role')).find(([, r]) => JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('states.amazonaws.com'))!;
    const actions = statementsOf(synth.template, roleId).flatMap((s) => asArray(s.Action));
    expect(actions).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords', 'xray:GetSamplingRules', 'xray:GetSamplingTargets']));
  });

  it('is off by default: no tracing, no Tracer layer', () => {
    const plain = synthesize({}, { bundle: false });
    try {
      for (const f of Object.values(ofType(plain.template, 'AWS::Lambda::Function'))) expect(f.Properties.TracingConfig).toBeUndefined();
      expect(Object.values(ofType(plain.template, 'AWS::Lambda::LayerVersion')).some((l) => String(l.Properties.Description).includes('tracer'))).toBe(false);
    } finally {
      rmSync(plain.outdir, { recursive: true, force: true });
    }
  });
});
