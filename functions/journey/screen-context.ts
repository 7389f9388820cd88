import type { ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import type { StepRefusal } from '../process-manager/model.js';
import type { Language } from './messages/index.js';
import type { PageChrome } from './layout.js';
import { own } from '../shared/own.js';

/** The journey page, or where a step's page posts (`/steps/{activityId}`, plus `/face` for an image). */
export function journeyUrl(
  record: Pick<ProcessInstanceRecord, 'id'>,
  capability: string,
  lang: Language,
  activityId?: string,
  part?: 'face' | 'face/challenge' | 'face/liveness-session' | 'passcode' | 'passkey' | 'passkey/options',
): string {
  const q = `?c=${encodeURIComponent(capability)}&lang=${lang}`;
  if (!activityId) return `/journey/${record.id}${q}`;
  return `/journey/${record.id}/steps/${encodeURIComponent(activityId)}${part ? `/${part}` : ''}${q}`;
}

export type WaitingStep = NonNullable<ProcessInstanceRecord['currentStep']>;

/** What a screen renders from: the waiting step, the link's capability and the language. */
export interface ScreenContext {
  record: ProcessInstanceRecord;
  step: WaitingStep;
  capability: string;
  lang: Language;
  /**
   * The UI component the step shows: its `Starting Component ID` input, or the activity's own
   * component when it has no such input.
   */
  component: string;
  /** The screen of the step's `List of Screens` being shown (its `UI Component ID` first). */
  screen: string;
  screens: string[];
  /** The step's last refused submission, which its page shows (what to fix, what was entered). */
  refusal?: StepRefusal;
  /** What the page shows around the screen: the relying party, the step's progress, the language switch. */
  chrome: PageChrome;
  /** The origin the page was reached at (`https://{tenant}.{host}`), for a link to open on another device; absent where no page shows one. */
  origin?: string;
}

/** Where a step's page is: its component and screen, from the step's inputs (resolved when the step began). */
export function screenOf(record: ProcessInstanceRecord, step: WaitingStep, capability: string, lang: Language, ownComponent: string, origin?: string): ScreenContext {
  const inputs = step.inputs;
  const component = typeof inputs['Starting Component ID'] === 'string' ? inputs['Starting Component ID'] : ownComponent;
  const first = typeof inputs['UI Component ID'] === 'string' ? inputs['UI Component ID'] : component;
  const listed = Array.isArray(inputs['List of Screens']) ? (inputs['List of Screens'] as unknown[]).map(String) : [];
  const screens = listed.length ? listed : [first];
  return {
    record,
    step,
    capability,
    lang,
    component,
    screen: screens.includes(first) ? first : screens[0]!,
    screens,
    chrome: chromeOf(record, capability, lang, step),
    ...(step.refused ? { refusal: step.refused } : {}),
    ...(origin ? { origin } : {}),
  };
}

/**
 * What a journey's pages show around their screens, from the instance (its definition version's
 * `pages`, copied when it was created, and the theme resolved then): the relying party and its
 * theme, and at a step the step's progress;
 * the language switch links to the journey page in each language.
 */
export function chromeOf(
  record: Pick<ProcessInstanceRecord, 'id' | 'pages'>,
  capability: string,
  lang: Language,
  step?: Pick<WaitingStep, 'activityId'>,
): PageChrome {
  const progress = step ? own(record.pages?.progress ?? {}, step.activityId) : undefined;
  return {
    presentation: record.pages?.presentation,
    progress,
    theme: record.pages?.theme,
    languageHref: (l) => journeyUrl(record, capability, l),
  };
}
