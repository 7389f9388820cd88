import type { ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import { isFinal } from '../process-manager/instances/status.js';
import type { ScreenRender, Screens, StepDeps } from '../activities/contract.js';
import type { ActivitySpec, InputsOf } from '../activities/spec.js';
import type { Language } from './messages/index.js';
import { renderDone } from './screens/done.js';
import { renderGone } from './screens/gone.js';
import { renderRedirect } from './screens/redirect.js';
import { renderReview } from './screens/review.js';
import { renderTrouble } from './screens/trouble.js';
import { renderUnsupported } from './screens/unsupported.js';
import { renderWaiting } from './screens/waiting.js';
import { chromeOf, screenOf as screenAt, type ScreenContext, type WaitingStep } from './screen-context.js';
import { own } from '../shared/own.js';
import { isHttpUrl } from '../shared/http-url.js';

/** What a journey page is rendered with: a renderer per UI component, and where a step's page is. */
export interface JourneyScreens {
  /** A renderer per UI component, from the activities' `screens`. */
  readonly byComponent: Readonly<Record<string, (ctx: ScreenContext) => string | Promise<string>>>;
  /** Where a step's page is: its component (its activity's own by default) and screen. */
  screenOf(record: ProcessInstanceRecord, step: WaitingStep, capability: string, lang: Language, origin?: string): ScreenContext;
  /** Whether the end user does not act on this step's page (its module says it waits). */
  waits(step: WaitingStep): boolean;
  /**
   * The renderer of a step's page: its own activity's for its component, else for its screen (a
   * generic step names the capture it previews as its component and `preview` as its screen); a
   * step whose activity has no screens here, any activity's for its component.
   */
  rendererOf(screen: ScreenContext): ((ctx: ScreenContext) => string | Promise<string>) | undefined;
}

/**
 * The screens framework. A user step names its UI component (`Starting Component ID`; the
 * activity's own when it has no such input) and the screens it goes through (`UI Component
 * ID`, `List of Screens`); each activity module registers a renderer per component or screen it
 * shows (its `screens`), and a step is drawn by its own activity's (`rendererOf`). A step with
 * none renders the "cannot be completed here" page rather than a broken one. The entry point hands the activities' screens in (show-journey.ts), with the
 * stores they name: the framework does not import the activities it shows, nor their stores.
 */
export function journeyScreens<D extends keyof StepDeps>(stepScreens: Readonly<Record<string, Screens<ActivitySpec, D>>>, deps: Pick<StepDeps, D>): JourneyScreens {
  const withView = (render: ScreenRender<ActivitySpec, D>) => (ctx: ScreenContext) => render({ ...ctx, inputs: ctx.step.inputs as InputsOf<ActivitySpec>, deps });
  const byComponent = Object.fromEntries(
    Object.values(stepScreens).flatMap((s) => Object.entries(s.render).map(([component, render]) => [component, withView(render as ScreenRender<ActivitySpec, D>)])),
  );
  return {
    byComponent,
    rendererOf: (screen) => {
      const mine = own(stepScreens, screen.step.activityType);
      if (!mine) return own(byComponent, screen.component);
      const render = own(mine.render, screen.component) ?? own(mine.render, screen.screen);
      return render && withView(render as ScreenRender<ActivitySpec, D>);
    },
    screenOf: (record, step, capability, lang, origin) => screenAt(record, step, capability, lang, own(stepScreens, step.activityType)?.component ?? step.activityType, origin),
    waits: (step) => own(stepScreens, step.activityType)?.waits === true,
  };
}

/**
 * The redirect a Redirect User step recorded, while it holds: until a later step is finished
 * (the instance's `lastStep` is newer), and only to a URL the `_redirectUrl` rule allows (the
 * step judged it; judged again here, as the page is what sends the browser).
 */
export function pendingRedirect(record: Pick<ProcessInstanceRecord, 'redirect' | 'lastStep'>): string | undefined {
  const redirect = record.redirect;
  if (!redirect || typeof redirect.url !== 'string' || !isHttpUrl(redirect.url)) return undefined;
  if (record.lastStep && record.lastStep.at > redirect.at) return undefined;
  return redirect.url;
}

/**
 * The page for where the journey is: its waiting step, its end, or a moment in between. Where the
 * end user has nothing to do (a step that only waits or that has no screen here, a service step
 * running, the journey's end) and a Redirect User step recorded a redirect that still holds, the
 * page sends the browser there instead. `origin`: where the page was reached.
 */
export async function journeyPage(screens: JourneyScreens, record: ProcessInstanceRecord, capability: string, lang: Language, origin?: string): Promise<string> {
  // A journey that has ended shows its end, even if a step it waited at (one that timed out) is still recorded.
  const step = isFinal(record.status) ? undefined : record.currentStep;
  const redirect = pendingRedirect(record);
  const chrome = chromeOf(record, capability, lang);
  if (step) {
    const screen = screens.screenOf(record, step, capability, lang, origin);
    const render = screens.rendererOf(screen);
    if (redirect !== undefined && (!render || screens.waits(step))) return renderRedirect(lang, redirect, chrome);
    return render ? render(screen) : renderUnsupported(lang, screen.chrome);
  }
  // A review was required: the end user's part is over, whether the journey still goes on (to
  // its back office's decision) or ended in REVIEW. A decided review shows the end.
  if (record.review && (record.status === 'REVIEW' || !isFinal(record.status))) {
    return renderReview({ lang, redirectUrl: record.parameters._redirectUrl, chrome });
  }
  switch (record.status) {
    case 'COMPLETED_ENDED_SUCCESS':
    case 'COMPLETED_ENDED_ERROR':
    case 'REVIEW':
      return redirect !== undefined ? renderRedirect(lang, redirect, chrome) : renderDone({ lang, redirectUrl: record.parameters._redirectUrl, chrome });
    case 'COMPLETED_TERMINATED':
      return renderGone(lang, chrome);
    case 'COMPLETED_PROCESS_ERROR':
      return renderTrouble(lang, chrome);
    default:
      return redirect !== undefined ? renderRedirect(lang, redirect, chrome) : renderWaiting(lang, chrome);
  }
}
