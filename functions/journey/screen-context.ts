import type { ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import type { Language } from './messages/index.js';

/** The journey page, or where a step's page posts (`/steps/{activityId}`, plus `/face` for an image). */
export function journeyUrl(
  record: Pick<ProcessInstanceRecord, 'id'>,
  capability: string,
  lang: Language,
  activityId?: string,
  part?: 'face' | 'passcode' | 'passkey' | 'passkey/options',
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
  return { record, step, capability, lang, component, screen: screens.includes(first) ? first : screens[0]!, screens, ...(origin ? { origin } : {}) };
}
