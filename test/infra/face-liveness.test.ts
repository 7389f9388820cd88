/**
 * Rekognition Face Liveness in the stack: where the region has it (fir is eu-west-1 in cdk.json),
 * the routes get their grants, the session route a browser role only it may assume (allowed the
 * streaming call and nothing else), and every route FACE_LIVENESS; where it has not
 * (ap-southeast-2), none of it exists, and publish refuses the option.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import type { RouteDef } from '../../functions/http/route.js';
import { journeyRoutes } from '../../functions/journey/journey-routes.js';
import { routeList } from '../../functions/routes.js';
import { FACE_LIVENESS_REGIONS } from '../../functions/faces/liveness-service.js';
import { asArray, joined, ofType, refId, resourceAt, routeFunctionPath, statementsOf, synthesize, unacknowledgedNagFindings, type Resource, type Synthesized } from './support.js';

const actionsOf = (template: Template, roleId: string) => statementsOf(template, roleId).flatMap((s) => asArray(s.Action));
const functionOf = (template: Template, route: RouteDef) => resourceAt(template, 'AWS::Lambda::Function', routeFunctionPath(route))[1];
const envOf = (f: Resource) => (f.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;

describe('Face Liveness where the region has it', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({}, { bundle: false });
  });

  it('runs in the regions with a streaming endpoint, fir among them', () => {
    expect(synth.stack.region).toBe('eu-west-1');
    expect(FACE_LIVENESS_REGIONS).toContain('eu-west-1');
    expect(FACE_LIVENESS_REGIONS).not.toContain('ap-southeast-2');
  });

  it('gives the session route a browser role that only its role may assume, allowed the streaming call alone', () => {
    const { template } = synth;
    const fn = functionOf(template, journeyRoutes.startFaceLivenessSession);
    const fnRole = refId(fn.Properties.Role)!;
    const browserId = refId(envOf(fn).LIVENESS_BROWSER_ROLE_ARN)!;
    const browser = ofType(template, 'AWS::IAM::Role')[browserId]!;
    expect(browser.Properties.Path).toBe('/arthr-fir-startFaceLivenessSession/liveness-browser/');
    expect(browser.Properties.MaxSessionDuration).toBe(3600);
    const trust = asArray(browser.Properties.AssumeRolePolicyDocument.Statement) as { Action: string; Principal: { AWS: unknown } }[];
    expect(trust).toHaveLength(1);
    expect(trust[0]!.Action).toBe('sts:AssumeRole');
    expect(refId(trust[0]!.Principal.AWS)).toBe(fnRole);
    const allowed = statementsOf(template, browserId);
    expect(allowed).toEqual([expect.objectContaining({ Effect: 'Allow', Action: 'rekognition:StartFaceLivenessSession', Resource: '*' })]);
    // The function: create sessions, and assume its own browser role (by its path), nothing of other roles.
    const own = statementsOf(template, fnRole);
    expect(own.find((s) => asArray(s.Action).includes('rekognition:CreateFaceLivenessSession'))).toMatchObject({ Resource: '*' });
    expect(own.flatMap((s) => asArray(s.Action))).not.toContain('rekognition:StartFaceLivenessSession');
    const assume = own.find((s) => asArray(s.Action).includes('sts:AssumeRole') && joined(s.Resource).includes('liveness-browser'))!;
    expect(joined(assume.Resource)).toBe('arn:aws:iam::<AWS::AccountId>:role/arthr-fir-startFaceLivenessSession/liveness-browser/*');
  });

  it('lets the capture submission read results, no other route any Face Liveness call, and tells every route the service is there', () => {
    const { template } = synth;
    const submit = functionOf(template, journeyRoutes.submitFaceCapture);
    const submitActions = actionsOf(template, refId(submit.Properties.Role)!);
    expect(submitActions).toContain('rekognition:GetFaceLivenessSessionResults');
    expect(submitActions).not.toContain('rekognition:CreateFaceLivenessSession');
    expect(envOf(submit).LIVENESS_BROWSER_ROLE_ARN).toBeUndefined();
    const liveness = /FaceLiveness/;
    const granted = Object.values(ofType(template, 'AWS::Lambda::Function')).filter((f) =>
      actionsOf(template, refId(f.Properties.Role)!).some((a) => liveness.test(a)),
    );
    expect(granted.map((f) => f.Metadata?.['aws:cdk:path']).sort()).toEqual([`${routeFunctionPath(journeyRoutes.startFaceLivenessSession)}/Resource`, `${routeFunctionPath(journeyRoutes.submitFaceCapture)}/Resource`].sort());
    // Publishing takes Liveness Check REKOGNITION only where the function is told the service is there.
    const create = routeList.find((r) => r.operationId === 'createProcessDefinition')!;
    expect(envOf(resourceAt(template, 'AWS::Lambda::Function', routeFunctionPath(create))[1]).FACE_LIVENESS).toBe('rekognition');
    expect(envOf(functionOf(template, journeyRoutes.getFaceLivenessAsset)).FACE_LIVENESS).toBe('rekognition');
  });

  it('leaves no cdk-nag finding unacknowledged', () => {
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});

describe('Face Liveness where the region has none', () => {
  it('grants nothing of it, makes no browser role and does not tell the routes it is there', () => {
    const { template } = synthesize({ regions: { fir: 'ap-southeast-2', gum: 'us-east-1', oak: 'ap-southeast-2' } }, { bundle: false });
    const roles = Object.values(ofType(template, 'AWS::IAM::Role'));
    expect(roles.filter((r) => String(r.Properties.Path ?? '').includes('liveness-browser'))).toEqual([]);
    for (const f of Object.values(ofType(template, 'AWS::Lambda::Function'))) {
      expect(envOf(f).FACE_LIVENESS, f.Metadata?.['aws:cdk:path']).toBeUndefined();
      expect(envOf(f).LIVENESS_BROWSER_ROLE_ARN).toBeUndefined();
      if (f.Properties.Role) expect(actionsOf(template, refId(f.Properties.Role)!).filter((a) => /FaceLiveness|StartFaceLivenessSession/.test(a))).toEqual([]);
    }
  });
});
