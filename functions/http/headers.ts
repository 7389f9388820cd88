import * as z from '../shared/zod.js';

/**
 * Request headers routes read, as zod schemas for `request.headers` (validated by the wrapper,
 * listed in the OpenAPI document). Names are in lower case, as API Gateway hands them over; the
 * objects are loose because every request carries headers no route reads.
 */

/** The API key, under each name the spec lists (X-API-Key, X-Api-Key and X-ApiKey: header names ignore case). */
export const apiKeyHeaderFields = {
  'x-api-key': z.withMeta(z.optional(z.string()), { description: 'The API key (also accepted as X-Api-Key).' }),
  'x-apikey': z.withMeta(z.optional(z.string()), { description: 'The API key, under the other name the spec lists.' }),
};

export const ApiKeyHeaders = z.looseObject(apiKeyHeaderFields);
