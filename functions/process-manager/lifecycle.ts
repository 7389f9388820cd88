import { InvalidTransitionError } from '../errors.js';
import type { DeploymentStatus } from './model.js';

/**
 * The lifecycle of a deployed version (a process definition's, a data form's, a cloud
 * function's), as the family's deployment tools drive it: a DRAFT is activated (or archived); an
 * active version can be set inactive and back; any can be archived, which is final. Nothing goes
 * back to DRAFT: a deployed version may be in use by journeys. EDITABLE, the family's draft, is a
 * DRAFT under another name: created so, it reads so and moves as a DRAFT does (a draft does not
 * change names: DRAFT and EDITABLE do not become one another).
 */
export const DEPLOYMENT_TRANSITIONS: Readonly<Record<DeploymentStatus, readonly DeploymentStatus[]>> = {
  DRAFT: ['DEPLOYED_ACTIVE', 'ARCHIVED'],
  EDITABLE: ['DEPLOYED_ACTIVE', 'ARCHIVED'],
  DEPLOYED_ACTIVE: ['DEPLOYED_INACTIVE', 'ARCHIVED'],
  DEPLOYED_INACTIVE: ['DEPLOYED_ACTIVE', 'ARCHIVED'],
  ARCHIVED: [],
};

/**
 * Whether `what` may go from `from` to `to`: 'same' when it is there already (a deployment tool
 * may repeat itself, and nothing changes), 'move' when the lifecycle allows it; otherwise 400
 * INVALID_STATUS_TRANSITION saying what it can become.
 */
export function checkTransition(what: string, from: DeploymentStatus, to: DeploymentStatus): 'same' | 'move' {
  if (from === to) return 'same';
  const allowed = DEPLOYMENT_TRANSITIONS[from];
  if (allowed.includes(to)) return 'move';
  throw new InvalidTransitionError(
    `A ${from} ${what} cannot become ${to}${allowed.length ? `; it can become ${allowed.join(' or ')}` : ': ARCHIVED is final'}.`,
  );
}
