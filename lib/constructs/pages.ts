import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { PageFileAction } from '../../functions/http/route.js';
import { IMAGE_KEY_PREFIX } from './images.js';
import { pagesFrameAncestors } from '../pages-frame.js';
import { nagArn } from './service-function.js';
import { SESSION_TENANT } from './tenant-role.js';

/**
 * The keys CloudFront may read: a custom page version's files,
 * `tenants/{tenantId}/custom-pages/{pageId}/{servingSecret}/{path}` (functions/store/keys.ts
 * `customPagePrefix`). Uploads waiting for their create (`tenants/{t}/custom-page-uploads/`) are
 * in the same bucket and never served.
 */
export const SERVED_PAGE_KEYS = 'tenants/*/custom-pages/*';

/** What a function needs to be granted page actions, and to name the bucket and origin. */
export interface PagesAccess {
  readonly bucket: s3.IBucket;
  /** `https://{distribution domain}`: where previewUrl and a page's baseUrl point. */
  readonly origin: string;
}

/** The environment a function using pages reads (functions/config.ts). */
export function pagesEnvironment(access: PagesAccess): Record<string, string> {
  return { PAGES_BUCKET: access.bucket.bucketName, PAGES_ORIGIN: access.origin };
}

/** `arn:aws:s3:::<bucket>/tenants/*`; a tenant session's, `tenants/{its tenant}/*`. */
export function pageObjectsArn(bucket: s3.IBucket, scope: 'service' | 'tenant' = 'service'): string {
  return bucket.arnForObjects(`${IMAGE_KEY_PREFIX}${scope === 'tenant' ? `${SESSION_TENANT}/` : ''}*`);
}

/**
 * Exactly the statements for a route's `aws.pages`: object actions under `tenants/` (a tenant
 * session's: under its own tenant's prefix), and ListBucket only for prefixes there. No key
 * statements: the bucket is SSE-S3 (see `Pages`).
 */
export function pageStatements(actions: readonly PageFileAction[], access: PagesAccess, scope: 'service' | 'tenant' = 'service'): iam.PolicyStatement[] {
  const statements: iam.PolicyStatement[] = [];
  const objectActions = (['PutObject', 'GetObject', 'DeleteObject'] as const).filter((a) => actions.includes(a));
  if (objectActions.length > 0) {
    statements.push(new iam.PolicyStatement({ sid: 'PageObjects', actions: objectActions.map((a) => `s3:${a}`), resources: [pageObjectsArn(access.bucket, scope)] }));
  }
  if (actions.includes('ListBucket')) {
    const prefix = scope === 'tenant' ? `${IMAGE_KEY_PREFIX}${SESSION_TENANT}/` : IMAGE_KEY_PREFIX;
    statements.push(
      new iam.PolicyStatement({
        sid: 'PageListing',
        actions: ['s3:ListBucket'],
        resources: [access.bucket.bucketArn],
        // A page's files are listed to delete them: always under one tenant's prefix.
        conditions: { StringLike: { 's3:prefix': `${prefix}*` } },
      }),
    );
  }
  return statements;
}

/** Acknowledges the one wildcard `pageStatements` writes (the objects under tenants/), on a role that has it. */
export function acknowledgePageObjects(role: iam.IRole, bucket: s3.IBucket, scope: 'service' | 'tenant' = 'service'): void {
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagArn(pageObjectsArn(bucket, scope), Stack.of(role))}]`,
    reason:
      'Custom page keys are made at run time (tenants/{tenantId}/custom-pages/{pageId}/{secret}/...), so object grants name the ' +
      "tenants/ prefix of the one pages bucket (a tenant role's: its own tenant's); the function code builds every key under its tenant.",
  });
}

export interface PagesProps {
  /** Where the pages bucket's server access logs go (the images' access-log bucket, under `pages/`). */
  accessLogs: s3.IBucket;
  /**
   * The tenant hosts (`*.{label}.{serviceDomain}`): the only pages that may frame a custom page
   * (its `frame-ancestors`), the hosted journey pages. Opened by its URL, a page shows anywhere.
   */
  tenantHosts: string;
}

/**
 * Custom pages on their own origin: the pages bucket (each version's files, and the archives PUT
 * through pre-signed uploads) and a CloudFront distribution that reads it through an Origin
 * Access Control. Anyone with a version's URL reads its files, without a token, as the family's
 * clients fetch `previewUrl`; the URL holds the version's 128-bit secret, so it cannot be
 * guessed, and nothing is listed. The bucket itself stays private: only CloudFront (this
 * distribution) reads it, and only under `tenants/*\/custom-pages/`.
 */
export class Pages extends Construct implements PagesAccess {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly origin: string;

  constructor(scope: Construct, id: string, props: PagesProps) {
    super(scope, id);

    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // SSE-S3, not a customer key: the files are served to anyone holding their URL, so a key
      // would gate nothing a reader cannot get through CloudFront, and an OAC reading SSE-KMS
      // objects would need the key's policy opened to CloudFront.
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: false,
      // Parts of an upload that never completed are stored (and billed) but listed nowhere.
      lifecycleRules: [{ id: 'AbortIncompleteUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'pages/',
      // The relying parties' pages: never deleted with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Custom page files: nosniff, HSTS, only the origin as referrer (the URL holds the version secret), framed only by journey pages.',
      securityHeadersBehavior: {
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: false, override: true },
        contentSecurityPolicy: { contentSecurityPolicy: pagesFrameAncestors(`https://${props.tenantHosts}`), override: true },
      },
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Arthr custom pages: each version\'s files by an unguessable URL, read-only',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket, { originAccessLevels: [cloudfront.AccessLevel.READ] }),
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        // Versions never change (a new upload is a new folder): cached as long as their Cache-Control says.
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
    });
    this.origin = `https://${this.distribution.distributionDomainName}`;

    // The OAC grant above is GetObject on every object; only page files are served: the
    // uploads waiting for their create (and anything else) are never CloudFront's to read.
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudFrontReadsPageFilesOnly',
        effect: iam.Effect.DENY,
        principals: [new iam.ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        notResources: [this.bucket.arnForObjects(SERVED_PAGE_KEYS)],
      }),
    );

    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Relying parties serve people in any country; a custom page is a step of their journeys, which no country rule limits.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'The distribution serves static, immutable files of one S3 prefix, GET and HEAD only, cached for a year: there is no ' +
          'application behind it for a WAF rule to protect, and request floods are absorbed by the cache.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Viewer logs would be IP addresses of the people doing journeys, kept without a use: the files are public by URL and carry ' +
          'no data. Origin reads are in the pages bucket\'s S3 server access logs.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution uses its cloudfront.net domain and certificate, for which CloudFront fixes the TLS policy (a minimum ' +
          'protocol version takes effect only with a custom certificate); the files are public by URL and carry no personal data.',
      },
    );
  }
}
