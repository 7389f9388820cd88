import { ConditionError, evaluate, type Json } from '../../statemachines/conditions/index.js';
import { evaluateTemplate, parseTemplate } from '../../statemachines/templates.js';
import { findCustomPage } from '../theme-server/custom-page-reader.js';
import { CUSTOM_PAGE_EVENT_FIELD, CUSTOM_PAGE_SEND, CUSTOM_PAGE_VARIABLE_PREFIX, renderCustomPage, type CustomPageFrame } from '../journey/screens/custom-page.js';
import { journeyUrl, type WaitingStep } from '../journey/screen-context.js';
import { replacing } from '../journey/steps.js';
import { own } from '../shared/own.js';
import { activityError, type ActivityAccess, type Screens, type StepBegin, type StepView, type Submission } from './contract.js';
import { redirectVariables } from './redirect-user-v2.js';
import { STEP_TIMEOUT_DEFAULT, STEP_TIMEOUT_INPUT } from './spec.js';
import { spec } from './specs/custom-page.js';

/** Reads the custom page it names when it starts, and learns where pages are served (PAGES_ORIGIN). */
export const aws = { table: ['GetItem', 'Query'], pagesOrigin: true } as const satisfies ActivityAccess;

/** The family's UI component of a custom page step (`screenId`, `stepId`, `screens`). */
export const CUSTOM_PAGE_SCREEN = 'custom-page';

/** Where the step records the page it frames and what the page is told (beside its inputs). */
const FRAME_INPUT = 'Custom Page Frame';

/**
 * What the page is told is recorded with the step (the instance item holds the waiting step
 * beside its session, at most 192 KiB, and the journey page carries it): at most this many bytes
 * of JSON, so the item stays well inside DynamoDB's 400 KB with the session full.
 */
export const MAX_SESSION_DATA_BYTES = 64 * 1024;

/** What a SEND may carry: the host script's rules (one source for both sides). */
export { MAX_VARIABLES, VARIABLE_NAME } from '../journey/client/custom-page-send.js';
import { MAX_VARIABLES, VARIABLE_NAME } from '../journey/client/custom-page-send.js';

/**
 * Session Data, evaluated as the step starts against the journey's variables (as Redirect User
 * V2's template reads them): a value that is one whole `${...}` keeps the type of what it
 * evaluates to (`${idv}` an object), any other value is text with its expressions filled in.
 * A value that cannot be evaluated fails the step, naming its key (never a value).
 */
export function evaluateSessionData(activityId: string, data: Readonly<Record<string, string>>, vars: Parameters<typeof evaluate>[1]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, text] of Object.entries(data)) {
    const invalid = (why: string) => activityError(spec, 'CustomPageSessionDataInvalid', `${activityId}: Session Data "${key}" cannot be evaluated: ${why}`);
    let parts;
    try {
      parts = parseTemplate(text);
    } catch (e) {
      if (!(e instanceof ConditionError)) throw e;
      throw invalid(e.message);
    }
    const [only] = parts;
    try {
      out[key] = parts.length === 1 && only && 'expression' in only ? evaluate(only.expression, vars) : evaluateTemplate(parts, vars);
    } catch (e) {
      if (!(e instanceof ConditionError)) throw e;
      // The evaluator's message may quote the value it met (what an end user typed): named by the expression only.
      throw invalid(`${text.length > 200 ? `${text.slice(0, 200)}…` : text} reads a value that is not what it needs (a number).`);
    }
  }
  return out;
}

/** The family's screen inputs, as the catalogue spells them (SCREEN_INPUTS), or as screen-context.ts reads them. */
function screenInputs(inputs: Readonly<Record<string, unknown>>): { screenId: string; screens: string[] } {
  const id = inputs['UI Component Id'] ?? inputs['UI Component ID'];
  const listed = inputs['List of Screens'];
  const screens = Array.isArray(listed) && listed.length ? listed.map(String) : [CUSTOM_PAGE_SCREEN];
  return { screenId: typeof id === 'string' && id ? id : CUSTOM_PAGE_SCREEN, screens };
}

/**
 * Before the journey waits: the page it names (by name and version, any status but ARCHIVED; no
 * version, the latest DEPLOYED_ACTIVE one), where it is served, and what it will be told: the
 * step's Constants with the family's additions, and its Session Data evaluated now. Recorded
 * with the step, so its page and its submission judge by that very version.
 */
export const begin: StepBegin<typeof spec> = async ({ activityId, inputs, session, tenantId, deps, timeoutSeconds }) => {
  const name = inputs['Custom Page Name'];
  const version = inputs['Custom Page Version'];
  const found = await findCustomPage(deps.customPages, tenantId, name, version);
  const which = version === undefined ? `Custom page "${name}" has no DEPLOYED_ACTIVE version` : `Custom page "${name}" version ${version}`;
  switch (found.outcome) {
    case 'missing':
      throw activityError(spec, 'CustomPageNotFound', `${activityId}: ${which}${version === undefined ? '' : ' does not exist'}.`);
    case 'archived':
      throw activityError(spec, 'CustomPageArchived', `${activityId}: ${which} is ARCHIVED.`);
    case 'noFiles':
      throw activityError(spec, 'CustomPageHasNoFiles', `${activityId}: ${which} has no files (its archive was deleted).`);
  }
  const sessionData = evaluateSessionData(activityId, inputs['Session Data'] ?? {}, redirectVariables(session));
  const { screenId, screens } = screenInputs(inputs);
  const frame: CustomPageFrame = {
    page: { id: found.record.id, name: found.record.name, version: found.record.version },
    origin: found.urls.origin,
    indexUrl: found.urls.indexUrl,
    constants: {
      ...(inputs.Constants ?? {}),
      baseUrl: found.urls.baseUrl,
      screenId,
      screens,
      timeoutInSeconds: timeoutSeconds ?? inputs[STEP_TIMEOUT_INPUT] ?? STEP_TIMEOUT_DEFAULT,
    },
    sessionData,
  };
  const size = Buffer.byteLength(JSON.stringify(frame));
  if (size > MAX_SESSION_DATA_BYTES) {
    throw activityError(spec, 'CustomPageSessionDataInvalid', `${activityId}: what the page would be told is ${size} bytes of JSON; it may be at most ${MAX_SESSION_DATA_BYTES}.`);
  }
  return { ...inputs, [FRAME_INPUT]: frame };
};

/** The frame a waiting custom page step recorded, or undefined for any other step. */
export function recordedFrame(step: Pick<WaitingStep, 'activityType' | 'inputs'>): CustomPageFrame | undefined {
  if (step.activityType !== spec.type) return undefined;
  const frame = own(step.inputs, FRAME_INPUT) as CustomPageFrame | undefined;
  return frame && typeof frame.origin === 'string' && typeof frame.indexUrl === 'string' ? frame : undefined;
}

type View = StepView<typeof spec>;

const hostPage = (view: View) => {
  const frame = recordedFrame(view.step);
  if (!frame) throw new Error(`The custom page step ${view.step.activityId} recorded no page.`);
  return renderCustomPage({
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId),
    frame,
    ...(view.refusal ? { problem: view.refusal.code } : {}),
    chrome: view.chrome,
  });
};

/** Its one screen, `custom-page`, whatever the family's screen inputs name. */
export const screens: Screens<typeof spec> = {
  component: CUSTOM_PAGE_SCREEN,
  render: { [CUSTOM_PAGE_SCREEN]: hostPage },
};

/** Refusals of a SEND the journey cannot keep (the host page says which). */
export const SEND_REFUSALS = { notSent: 'CUSTOM_PAGE_NOT_SENT', names: 'CUSTOM_PAGE_VARIABLE_NAMES', count: 'CUSTOM_PAGE_TOO_MANY_VARIABLES' } as const;

/**
 * The page's SEND, as the host page posts it (client/custom-page.ts): `arthr:event=SEND` and
 * each variable as `var:{name}` with its value as text. Kept as the family keeps it:
 * `_customUis.{Custom Page Key}.currentCapture.customPageParameters.{name}.value`, replacing the
 * step's last capture (a page shown again sends anew). A name conditions could not read, or more
 * than 100 of them, is refused: the step keeps waiting and its page says why.
 */
export const submission: Submission<typeof spec> = {
  part: 'form',
  async submit(view, { body = {} }, now) {
    if (own(body, CUSTOM_PAGE_EVENT_FIELD) !== CUSTOM_PAGE_SEND) return { refused: { code: SEND_REFUSALS.notSent, errors: {} } };
    const values: Record<string, string> = {};
    for (const [field, value] of Object.entries(body)) {
      if (!field.startsWith(CUSTOM_PAGE_VARIABLE_PREFIX)) continue;
      const name = field.slice(CUSTOM_PAGE_VARIABLE_PREFIX.length);
      if (!VARIABLE_NAME.test(name)) return { refused: { code: SEND_REFUSALS.names, errors: {} } };
      values[name] = value;
    }
    if (Object.keys(values).length > MAX_VARIABLES) return { refused: { code: SEND_REFUSALS.count, errors: {} } };
    const frame = recordedFrame(view.step)!;
    const key = view.inputs['Custom Page Key'];
    const capture = {
      customPageParameters: Object.fromEntries(Object.entries(values).map(([n, value]) => [n, { value }])),
      capturedAt: now.toISOString(),
      customPageName: frame.page.name,
      customPageVersion: frame.page.version,
    };
    return {
      complete: {
        result: { vars: { _customUis: { [key]: replacing({ currentCapture: capture }) } } },
        values,
        dataKey: key,
      },
    };
  },
};
