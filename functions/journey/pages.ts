import type { ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import { isFinal } from '../process-manager/instances/status.js';
import type { ScreenRender, Screens, StepDeps } from '../activities/contract.js';
import type { ActivitySpec, InputsOf } from '../activities/spec.js';
import type { Language } from './messages/index.js';
import { renderDone } from './screens/done.js';
import { renderGone } from './screens/gone.js';
import { renderTrouble } from './screens/trouble.js';
import { renderUnsupported } from './screens/unsupported.js';
import { renderWaiting } from './screens/waiting.js';
import { screenOf as screenAt, type ScreenContext, type WaitingStep } from './screen-context.js';
import { own } from '../shared/own.js';

/** What a journey page is rendered with: a renderer per UI component, and where a step's page is. */
export interface JourneyScreens {
  /** A renderer per UI component, from the activities' `screens`. */
  readonly byComponent: Readonly<Record<string, (ctx: ScreenContext) => string | Promise<string>>>;
  /** Where a step's page is: its component (its activity's own by default) and screen. */
  screenOf(record: ProcessInstanceRecord, step: WaitingStep, capability: string, lang: Language, origin?: string): ScreenContext;
}

/**
 * The screens framework. A user step names its UI component (`Starting Component ID`; the
 * activity's own when it has no such input) and the screens it goes through (`UI Component
 * ID`, `List of Screens`); each activity module registers a renderer per component it shows
 * (its `screens`). A component with none renders the "cannot be completed here" page rather
 * than a broken one. The entry point hands the activities' screens in (show-journey.ts), with the
 * stores they name: the framework does not import the activities it shows, nor their stores.
 */
export function journeyScreens<D extends keyof StepDeps>(stepScreens: Readonly<Record<string, Screens<ActivitySpec, D>>>, deps: Pick<StepDeps, D>): JourneyScreens {
  const byComponent = Object.fromEntries(
    Object.values(stepScreens).flatMap((s) =>
      Object.entries(s.render).map(([component, render]) => [component, (ctx: ScreenContext) => (render as ScreenRender<ActivitySpec, D>)({ ...ctx, inputs: ctx.step.inputs as InputsOf<ActivitySpec>, deps })]),
    ),
  );
  return {
    byComponent,
    screenOf: (record, step, capability, lang, origin) => screenAt(record, step, capability, lang, own(stepScreens, step.activityType)?.component ?? step.activityType, origin),
  };
}

/** The page for where the journey is: its waiting step, its end, or a moment in between. `origin`: where the page was reached. */
export async function journeyPage(screens: JourneyScreens, record: ProcessInstanceRecord, capability: string, lang: Language, origin?: string): Promise<string> {
  // A journey that has ended shows its end, even if a step it waited at (one that timed out) is still recorded.
  const step = isFinal(record.status) ? undefined : record.currentStep;
  if (step) {
    const screen = screens.screenOf(record, step, capability, lang, origin);
    const render = own(screens.byComponent, screen.component);
    return render ? render(screen) : renderUnsupported(lang);
  }
  switch (record.status) {
    case 'COMPLETED_ENDED_SUCCESS':
    case 'COMPLETED_ENDED_ERROR':
    case 'REVIEW':
      return renderDone({ lang, redirectUrl: record.parameters._redirectUrl });
    case 'COMPLETED_TERMINATED':
      return renderGone(lang);
    case 'COMPLETED_PROCESS_ERROR':
      return renderTrouble(lang);
    default:
      return renderWaiting(lang);
  }
}
