import { getConfig } from '../config.js';
import { apiHandler } from '../http/wrapper.js';
import { platformRoutes as routes } from './routes.js';

/** Discovery for the API Gateway JWT authorizer, which finds the keys through `jwks_uri`. */
export const handler = apiHandler(routes.openidConfiguration, async () => {
  const { TOKEN_ISSUER } = getConfig();
  const issuer = TOKEN_ISSUER.replace(/\/$/, '');
  return {
    status: 200,
    headers: { 'cache-control': 'public, max-age=300' },
    body: {
      issuer: TOKEN_ISSUER,
      jwks_uri: `${issuer}${routes.jwks.path}`,
      response_types_supported: ['token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['none'],
    },
  };
});
