import { randomUUID } from 'node:crypto';
import { getConfig } from '../config.js';
import { InvalidApiKeyError } from '../errors.js';
import { apiHandler } from '../http/wrapper.js';
import { buildAccessTokenClaims, signAccessToken } from '../auth/jwt.js';
import { signerFor } from '../auth/signer.js';
import { apiKeyStore } from '../store/api-keys.js';
import { countTokenIssued } from '../observability/metrics.js';
import { issueRefusal, parseSecret, tokenTtl } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.issueToken, async ({ tenantId, auth, now }) => {
  if (auth.kind !== 'apiKey') throw new InvalidApiKeyError();
  const config = getConfig();
  const parsed = parseSecret(auth.secret);
  if (!parsed) throw new InvalidApiKeyError();
  // The one DynamoDB call: a conditional write that both checks the key and stamps lastIssuedAtDtm.
  const outcome = await apiKeyStore.recordIssue(tenantId, parsed.id, parsed.hash, now.toISOString(), 'issueToken');
  if (!outcome.issued) throw issueRefusal(outcome.current, parsed.hash, now, 'issueToken');

  const ttl = tokenTtl(outcome.record, config.TOKEN_TTL_SECONDS, now);
  const claims = buildAccessTokenClaims({
    issuer: config.TOKEN_ISSUER,
    audience: config.TOKEN_AUDIENCE,
    region: config.SERVICE_REGION,
    tenantId,
    apiKeyId: outcome.record.id,
    permissions: outcome.record.permissions,
    now,
    ttlSeconds: ttl,
    jti: randomUUID(),
  });
  const token = await signAccessToken(signerFor(config.SIGNING_KEY), claims);
  await countTokenIssued(tenantId);
  return { status: 200, body: { token, ttl } };
});
