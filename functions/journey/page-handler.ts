import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { apiHandler, type HandlerResult, type LambdaHandler, type RequestContext, type RawHeaders } from '../http/wrapper.js';
import type { Responses, RouteDef } from '../http/route.js';
import type * as z4 from 'zod/v4/core';
import { journeyErrorPage as errorPageIn } from './error-page.js';
import { relyingPartyOf } from './refusal-chrome.js';

type Out<T> = T extends z4.$ZodType ? z4.output<T> : undefined;

/**
 * The page a person sees when a journey request fails: no detail beyond "this link does not
 * work" (4xx) or "something went wrong" (5xx), in the language the link asks for; for a link
 * that proved itself, the relying party's chrome (refusal-chrome.ts), with a switch to the same
 * link in another language where it was opened (a GET).
 */
export function journeyErrorPage(status: number, event: APIGatewayProxyEventV2, err?: unknown): string {
  const query = new URLSearchParams(event.rawQueryString ?? '');
  const relyingParty = relyingPartyOf(err);
  const get = event.requestContext?.http?.method === 'GET';
  const languageHref = (l: string) => {
    const q = new URLSearchParams(query);
    q.set('lang', l);
    return `${event.rawPath}?${q.toString()}`;
  };
  return errorPageIn(status, query.get('lang') ?? undefined, event.headers?.['accept-language'], relyingParty && { ...relyingParty, ...(get ? { languageHref } : {}) });
}

/** apiHandler for the journey's pages (`html` routes): their errors are answered with the journey's own error page. */
export function pageHandler<
  P extends z4.$ZodType | undefined,
  Q extends z4.$ZodType | undefined,
  B extends z4.$ZodType | undefined,
  H extends z4.$ZodType | undefined,
  R extends Responses,
>(
  route: RouteDef<P, Q, B, H, R>,
  // Not yet ResultOf<R>: the screens' helpers (pages.ts, steps.ts) return the status they chose
  // as a number; response validation checks it under test. To tighten when they return literals.
  operation: (ctx: RequestContext<Out<P>, Out<Q>, Out<B>, H extends z4.$ZodType ? Out<H> & RawHeaders : RawHeaders>) => Promise<HandlerResult>,
): LambdaHandler {
  return apiHandler(route as RouteDef, operation as never, { errorPage: journeyErrorPage });
}
