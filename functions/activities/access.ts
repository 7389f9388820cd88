import type { DocumentAction, FaceAction, TableAction } from '../http/route.js';
import type { ActivityAccess } from './contract.js';
import { ACCESS } from './index.generated.js';
import { NOT_RUNNABLE, SPECS } from './specs/index.generated.js';

/** What the activity function (or one activity type in it) is granted. */
export interface ActivityGrants {
  table: TableAction[];
  images: string[];
  cloudFunctions: boolean;
  /** Unseals cloud secrets (SECRETS_KEY and kms:Decrypt in their context): cloud function steps, and steps that read a tenant's service configuration. */
  cloudSecrets: boolean;
  faces: FaceAction[];
  documents: DocumentAction[];
  /** Learns where custom pages are served (PAGES_ORIGIN), with no grant on their bucket. */
  pagesOrigin: boolean;
  /** Runs the embedded face model (its layer on AWS; no AWS action). */
  faceModel: boolean;
}

/**
 * Every user step records where the journey waits, whatever the step: it reads the instance, and
 * in one transaction updates it, writes the step and puts the step change's event (the outbox).
 */
const USER_STEP_ACCESS = { table: ['GetItem', 'UpdateItem', 'PutItem'] } as const satisfies ActivityAccess;

/**
 * Every activity reads the session version its state refers to (functions/store/sessions.ts); a
 * service activity also writes the next one, deleting the one before the last. A user step's
 * next version is written by the end user's submission (the journey pages' role), not here.
 */
const SESSION_READ = { table: ['GetItem'] } as const satisfies ActivityAccess;
const SESSION_WRITE = { table: ['GetItem', 'PutItem', 'DeleteItem'] } as const satisfies ActivityAccess;

/**
 * The activity function's AWS access: the union of what the activity modules declare, with the
 * user steps' own. The CDK stack grants exactly this, and the integration suite checks it
 * against what the function used.
 */
export function activityFunctionAccess(): ActivityGrants {
  return union([SESSION_WRITE, USER_STEP_ACCESS, ...Object.values(ACCESS)]);
}

/** What one activity type needs in the activity function: its module's access, and a user step's. */
export function activityAccess(type: string): ActivityGrants {
  const spec = SPECS.find((s) => s.type === type);
  if (!spec || Object.prototype.hasOwnProperty.call(NOT_RUNNABLE, type)) return union([]);
  const own = (ACCESS as Record<string, ActivityAccess | undefined>)[type];
  // A decider is a Choice state: the function never runs it.
  if (spec.kind === 'decider') return union([]);
  return union([...(spec.kind === 'user' ? [SESSION_READ, USER_STEP_ACCESS] : [SESSION_WRITE]), ...(own ? [own] : [])]);
}

function union(all: ActivityAccess[]): ActivityGrants {
  const table = new Set<TableAction>(all.flatMap((a) => a.table ?? []));
  const order: TableAction[] = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'];
  return {
    table: order.filter((a) => table.has(a)),
    images: [...new Set(all.flatMap((a) => a.images ?? []))],
    cloudFunctions: all.some((a) => a.cloudFunctions === true),
    cloudSecrets: all.some((a) => a.cloudFunctions === true || a.cloudSecrets === true),
    faces: [...new Set(all.flatMap((a) => a.faces ?? []))],
    documents: [...new Set(all.flatMap((a) => a.documents ?? []))],
    pagesOrigin: all.some((a) => a.pagesOrigin === true),
    faceModel: all.some((a) => a.faceModel === true),
  };
}
