import { ErrorBodySchema } from '../shared/schemas.js';

/** Response entries the route tables share. */
export const error = (description: string) => ({ description, schema: ErrorBodySchema });
export const badRequest = error('Malformed JSON, wrong types, unknown enum values, over-long strings.');
export const unauthorized = error('Missing, invalid, expired or other-tenant bearer token.');
export const forbidden = error('The token lacks the permission this operation needs.');
