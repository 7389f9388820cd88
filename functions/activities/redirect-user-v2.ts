import { ConditionError, type Json, type Variables } from '../../statemachines/conditions/index.js';
import { evaluateTemplate, parseTemplate } from '../../statemachines/templates.js';
import { processVariables } from '../../statemachines/variables.js';
import { isHttpUrl, MAX_REDIRECT_URL_LENGTH } from '../shared/http-url.js';
import { own } from '../shared/own.js';
import { activityError, type ActivityAccess, type ServiceRun, type Session } from './contract.js';
import { keepStepData } from './service-user-data.js';
import { spec } from './specs/redirect-user-v2.js';

/** The redirect on the instance (UpdateItem), and in user data (PutItem). */
export const aws = { table: ['PutItem', 'UpdateItem'] } as const satisfies ActivityAccess;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** `www.example.com:8443/back`: a host and port, not a scheme. */
const HOST_AND_PORT = /^[^:/?#]+:\d+(?:[/?#]|$)/;

/**
 * The URL a browser is sent to for the text a step built, or undefined when the service does not
 * send one there. Text with no scheme (the family's own `www.example.com`) is taken as https, and
 * `//host/path` too; then the rule of `_redirectUrl` (functions/shared/http-url.ts) decides, so
 * whatever the text, only an absolute http(s) URL with a host and no credentials comes out:
 * `javascript:`, `data:`, `mailto:` and a path alone (`/back`) never do.
 */
export function redirectTarget(built: string): string | undefined {
  const text = built.trim();
  let absolute: string;
  if (text.startsWith('//')) absolute = `https:${text}`;
  // A path alone, or nothing: there is no host to send the browser to.
  else if (text === '' || /^[/\\?#]/.test(text)) return undefined;
  else if (SCHEME.test(text) && !HOST_AND_PORT.test(text)) absolute = text;
  else absolute = `https://${text}`;
  if (!isHttpUrl(absolute)) return undefined;
  const href = new URL(absolute).href;
  return href.length <= MAX_REDIRECT_URL_LENGTH ? href : undefined;
}

/**
 * What the template's expressions read: the journey's variables as output parameters see them
 * (statemachines/variables.ts), and `idv.config` as the process token's parameters (where the
 * relying party's `_redirectUrl` is) unless the journey has an `idv.config` of its own.
 */
export function redirectVariables(session: Session): Variables {
  const vars = processVariables(session);
  const config = (session.parameters ?? {}) as Record<string, Json>;
  const idv = own(vars, 'idv');
  if (idv === undefined || idv === null) return { ...vars, idv: { config } };
  if (typeof idv === 'object' && !Array.isArray(idv) && !Object.hasOwn(idv, 'config')) return { ...vars, idv: { ...idv, config } };
  return vars;
}

/**
 * Builds the URL (each `${...}` of Redirect URL evaluated, the rest as written), judges it, and
 * records it: on the instance, where the journey page finds it (ProcessInstanceRecord.redirect),
 * in the session (`_redirect`) and in user data. A URL it will not send a browser to fails the
 * step (RedirectUrlNotAllowed) and records nothing. Safe to run again: a retry records the same.
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { activityId, inputs, session, tenantId, now, deps } = ctx;
  let built: string;
  try {
    built = evaluateTemplate(parseTemplate(inputs['Redirect URL']), redirectVariables(session));
  } catch (e) {
    if (!(e instanceof ConditionError)) throw e;
    throw activityError(spec, 'RedirectUrlExpressionInvalid', `${activityId}: Redirect URL: ${e.message}`);
  }
  const url = redirectTarget(built);
  // The message names no part of the URL: it is built from what the journey was given.
  if (url === undefined) {
    throw activityError(
      spec,
      'RedirectUrlNotAllowed',
      `${activityId}: the Redirect URL built is not an absolute http(s) URL with a host, no credentials and at most ${MAX_REDIRECT_URL_LENGTH} characters; the end user is not sent there.`,
    );
  }
  const at = now.toISOString();
  await deps.instances.setRedirect(tenantId, session.instance.processInstanceId, { url, at, activityId });
  await keepStepData(ctx, { activityType: spec.type, dataKey: 'redirect', values: { url, at } });
  return { ...session, _redirect: { url, at } };
};
