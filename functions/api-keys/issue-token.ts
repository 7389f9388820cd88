import { randomUUID } from 'node:crypto';
import { getConfig } from '../config.js';
import { InvalidApiKeyError, TooManyRequestsError } from '../errors.js';
import { tenantRates } from '../auth/deps.js';
import { withinTokenIssueRate } from '../auth/rate-limit.js';
import { log } from '../http/log.js';
import { apiHandler } from '../http/wrapper.js';
import { buildAccessTokenClaims, signAccessToken } from '../auth/jwt.js';
import { signerFor } from '../auth/signer.js';
import { apiKeys } from './deps.js';
import { countTokenIssued } from '../observability/metrics.js';
import { recordTokenIssue, tokenTtl } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.issueToken, async ({ tenantId, auth, now }) => {
  if (auth.kind !== 'apiKey') throw new InvalidApiKeyError();
  const config = getConfig();
  // The one DynamoDB call: a conditional write that both checks the key and stamps lastIssuedAtDtm.
  const record = await recordTokenIssue(apiKeys, tenantId, auth.secret, now);
  // Token issue's own budget, counted now that the key is verified (each issue is a KMS Sign).
  if (!(await withinTokenIssueRate(tenantRates, tenantId, now, config.TOKEN_RATE_LIMIT, (error) => log().warn('token issue rate not counted', { error })))) {
    throw new TooManyRequestsError(`This tenant issued more than ${config.TOKEN_RATE_LIMIT} tokens this second; retry after a second, and reuse a token until it expires.`);
  }

  const ttl = tokenTtl(record, config.TOKEN_TTL_SECONDS, now);
  const claims = buildAccessTokenClaims({
    issuer: config.TOKEN_ISSUER,
    audience: config.TOKEN_AUDIENCE,
    region: config.SERVICE_REGION,
    tenantId,
    apiKeyId: record.id,
    permissions: record.permissions,
    now,
    ttlSeconds: ttl,
    jti: randomUUID(),
  });
  const token = await signAccessToken(signerFor(config.SIGNING_KEY), claims);
  await countTokenIssued(tenantId);
  return { status: 200, body: { token, ttl } };
});
