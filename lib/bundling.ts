/**
 * How every Lambda entry is bundled, shared by the CDK stack (NodejsFunction) and the bundle
 * benchmark so that what is measured is what is deployed.
 *
 * The AWS SDK v3 stays external: the nodejs22.x runtime provides it, and bundling it would put
 * every handler far over the 250 KB budget (about 600 KB more for DynamoDB alone).
 */
export const LAMBDA_BUNDLING = {
  format: 'esm' as const,
  platform: 'node' as const,
  target: 'node22',
  minify: true,
  sourcemap: false,
  mainFields: ['module', 'main'],
  external: ['@aws-sdk/*'],
  /** ESM bundles still meet CommonJS dependencies that call require(). */
  banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
};
