/**
 * The process manager's storage, put together here and only here: handlers (and the journey and
 * the local runtime) import the stores they use from this module and hand them to the domain
 * functions. One binding per store, so a handler's bundle carries only the stores it uses.
 *
 * The orchestrator port is wired where it is made, at first use: `orchestrator()` in
 * ./executions/orchestrator.ts (Step Functions, or the local engine once installed). It is not re-exported
 * here: its dynamic import of the Step Functions module would then be bundled into every handler
 * of the area. Events need no port here: the stores write them with each change (the outbox).
 */
import { customDataFormStore } from '../store/custom-data-forms.js';
import { definitionStore } from '../store/process-definitions.js';
import { processInstanceStore } from '../store/process-instances.js';
import { instancePauseStore } from '../store/instance-pauses.js';
import { processTokenStore } from '../store/process-tokens.js';
import { reviewStore } from '../store/reviews.js';
import { stateMachineRefReader, stateMachineRefStore } from '../store/state-machine-refs.js';
import { imageStore } from '../adapters/images.js';
import { objectKeys } from '../store/keys.js';
import { themeVersions } from '../store/themes.js';
import type { ThemeStore } from '../theme-server/model.js';
import { outboxStore } from '../store/outbox.js';
import type { InstanceEventReader } from './instances/instance-events.js';
import type {
  CustomDataFormStore,
  DefinitionStore,
  InstanceImageStore,
  InstancePauseStore,
  ProcessInstanceStore,
  ProcessTokenStore,
  ReviewStore,
  StateMachineRefStore,
} from './model.js';
import type { FaceUploadKey } from './instances/face-uploads.js';

export const definitions: DefinitionStore = definitionStore;
export const tokens: ProcessTokenStore = processTokenStore;
export const instances: ProcessInstanceStore = processInstanceStore;
export const customDataForms: CustomDataFormStore = customDataFormStore;
/** Instances' reviews: the review steps and the reviewer's decision. */
export const reviews: ReviewStore = reviewStore;
/** Pauses and their resumes (Pause Instance, Waiting for Resume, the resume URL and API). */
export const pauses: InstancePauseStore = instancePauseStore;
/** The state machines' reference items (shared by all tenants), as an activation reads them. */
export const stateMachines: Pick<StateMachineRefStore, 'get'> = stateMachineRefReader;
/** The reference items and the checkpoint, as the state machine janitor claims and keeps them. */
export const stateMachineJanitorStore: StateMachineRefStore = stateMachineRefStore;
/** Pre-signed uploads of face images from outside a journey, and where they go. */
export const uploads: Pick<InstanceImageStore, 'uploadUrl'> = imageStore;
export const faceUploadKey: FaceUploadKey = objectKeys.faceUpload;
/** Themes, as a definition's `themeId` is checked against them. */
export const themes: Pick<ThemeStore, 'get'> = themeVersions;
/** An instance's events, from the outbox's events index. */
export const instanceEvents: InstanceEventReader = outboxStore;
