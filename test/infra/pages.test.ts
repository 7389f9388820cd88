import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/route.js';
import { routeList } from '../../functions/routes.js';
import { asArray, ofType, refId, resourceAt, routeFunctionPath, statementsOf, synthesize, unacknowledgedNagFindings, type Resource, type Statement, type Synthesized } from './support.js';

/**
 * Two routes that use the pages bucket, as custom page operations do: one acting for a tenant
 * (it reads the table too), one listing and deleting. Their handlers are any existing file of
 * the area: the template is read without bundling.
 */
const base = routeList.find((r) => r.operationId === 'getCustomDataForm')!;
const writer = { ...base, operationId: 'pagesTestWriter', path: '/api/test/pagesWriter', aws: { table: ['GetItem'], pages: ['PutObject', 'GetObject', 'DeleteObject'] } } as unknown as RouteDef;
const lister = { ...base, operationId: 'pagesTestLister', path: '/api/test/pagesLister', aws: { table: ['GetItem'], pages: ['ListBucket', 'DeleteObject'] } } as unknown as RouteDef;

describe('ArthrStack custom pages', () => {
  let synth: Synthesized;
  let template: Template;
  let bucketId: string;
  let bucket: Resource;
  let distributionId: string;
  let distribution: Resource;

  const bucketArn = () => ({ 'Fn::GetAtt': [bucketId, 'Arn'] });
  const functionFor = (route: RouteDef) => resourceAt(template, 'AWS::Lambda::Function', routeFunctionPath(route))[1];
  const tenantStatementsOf = (route: RouteDef) => statementsOf(template, refId(functionFor(route).Properties.Environment.Variables.TENANT_ROLE_ARN)!);
  const bucketPolicy = () => {
    const policies = Object.values(ofType(template, 'AWS::S3::BucketPolicy')).filter((p) => refId(p.Properties.Bucket) === bucketId);
    expect(policies).toHaveLength(1);
    return asArray<Statement & { NotResource?: unknown; Sid?: string }>(policies[0]!.Properties.PolicyDocument.Statement);
  };

  beforeAll(() => {
    synth = synthesize({}, { bundle: false, routes: [...routeList, writer, lister] });
    template = synth.template;
    [bucketId, bucket] = resourceAt(template, 'AWS::S3::Bucket', 'ArthrStack/Pages/Bucket');
    [distributionId, distribution] = resourceAt(template, 'AWS::CloudFront::Distribution', 'ArthrStack/Pages/Distribution');
  }, 120_000);

  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  it('keeps the bucket private, encrypted, TLS-only, logged and retained', () => {
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    expect(bucket.Properties.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
    expect(bucket.Properties.LoggingConfiguration.LogFilePrefix).toBe('pages/');
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain' });
  });

  it('lets only this distribution read, and only page files (never the uploads)', () => {
    const statements = bucketPolicy();
    const cloudFront = statements.filter((s) => JSON.stringify(s.Principal).includes('cloudfront.amazonaws.com'));
    const allow = cloudFront.filter((s) => s.Effect === 'Allow');
    expect(allow).toHaveLength(1);
    expect(allow[0]!.Action).toBe('s3:GetObject');
    expect(JSON.stringify(allow[0]!.Condition)).toContain(`"${distributionId}"`);
    expect(cloudFront.filter((s) => s.Effect === 'Deny')).toEqual([
      expect.objectContaining({ Action: 's3:GetObject', NotResource: { 'Fn::Join': ['', [bucketArn(), '/tenants/*/custom-pages/*']] } }),
    ]);
    // Nobody else is let in by the bucket policy.
    expect(statements.filter((s) => s.Effect === 'Allow')).toHaveLength(1);
  });

  it('serves GET and HEAD over HTTPS only, through an origin access control, with nosniff and a cache policy', () => {
    const config = distribution.Properties.DistributionConfig;
    expect(config.Origins).toHaveLength(1);
    expect(refId(config.Origins[0].OriginAccessControlId)).toBeDefined();
    expect(config.Origins[0].S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    const behavior = config.DefaultCacheBehavior;
    expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(behavior.CachePolicyId).toBeDefined();
    expect(config.CacheBehaviors).toBeUndefined();
    const [, headers] = Object.entries(ofType(template, 'AWS::CloudFront::ResponseHeadersPolicy')).find(([id]) => id === refId(behavior.ResponseHeadersPolicyId))!;
    const security = headers.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(security.ContentTypeOptions).toEqual({ Override: true });
    expect(security.ReferrerPolicy).toEqual({ Override: true, ReferrerPolicy: 'strict-origin-when-cross-origin' });
    // Framed only by the journey pages, the tenant hosts; what a page loads is its own to say.
    expect(security.ContentSecurityPolicy).toEqual({ Override: true, ContentSecurityPolicy: expect.stringMatching(/^frame-ancestors https:\/\/\*\.fir\.[a-z0-9.-]+$/) });
    const [, oac] = Object.entries(ofType(template, 'AWS::CloudFront::OriginAccessControl'))[0]!;
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' });
  });

  it('grants a route exactly its `aws.pages` under its tenant\'s prefix, and names the bucket and origin', () => {
    const tenantObjects = { 'Fn::Join': ['', [bucketArn(), '/tenants/${aws:PrincipalTag/arthr-tenant}/*']] };
    const ofPages = (route: RouteDef) => tenantStatementsOf(route).filter((s) => JSON.stringify(s.Resource).includes(`"${bucketId}"`));
    expect(ofPages(writer)).toEqual([{ Sid: 'PageObjects', Effect: 'Allow', Action: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'], Resource: tenantObjects }]);
    expect(ofPages(lister)).toEqual([
      { Sid: 'PageObjects', Effect: 'Allow', Action: 's3:DeleteObject', Resource: tenantObjects },
      { Sid: 'PageListing', Effect: 'Allow', Action: 's3:ListBucket', Resource: bucketArn(), Condition: { StringLike: { 's3:prefix': 'tenants/${aws:PrincipalTag/arthr-tenant}/*' } } },
    ]);
    // The function's own role holds nothing on the bucket: every call goes through a tenant session.
    expect(JSON.stringify(statementsOf(template, refId(functionFor(writer).Properties.Role)!))).not.toContain(`"${bucketId}"`);
    const env = functionFor(writer).Properties.Environment.Variables;
    expect(env.PAGES_BUCKET).toEqual({ Ref: bucketId });
    expect(env.PAGES_ORIGIN).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] });
    // Routes without pages learn nothing of them.
    expect(functionFor(base).Properties.Environment.Variables.PAGES_BUCKET).toBeUndefined();
  });

  it('outputs the bucket and the origin for operators', () => {
    expect(template.findOutputs('PagesBucketName').PagesBucketName!.Value).toEqual({ Ref: bucketId });
    expect(JSON.stringify(template.findOutputs('PagesOrigin').PagesOrigin!.Value)).toContain(distributionId);
  });

  it('passes the cdk-nag AwsSolutions pack with no unacknowledged finding', () => {
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});
