import type { Session } from './session.js';

/** What a screen gets: where to draw, the route's parameters, the session. */
export interface ScreenContext {
  main: HTMLElement;
  params: string[];
  session: Session;
  /** Moves to another screen (a hash route, `#/...`). */
  go: (hash: string) => void;
}

export interface Screen {
  /** The hash route's first segment: `#/review` → `review`. */
  route: string;
  /** The navigation's label. */
  label: string;
  /** The permissions without which the screen cannot show anything: it says so instead. */
  needs: string[];
  render: (ctx: ScreenContext) => Promise<void>;
}
