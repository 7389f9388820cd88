/**
 * The intermediate graph of one executable process, read from the family's Camunda 7 BPMN
 * (parse.ts). Plain data with the BPMN ids and names kept, so every later check and every state
 * it compiles to can be traced to the designer's element. Diagram interchange (`bpmndi`), text
 * annotations, associations and lanes carry no execution meaning and are left out: the caller
 * keeps the uploaded XML for the byte-for-byte round trip.
 *
 * Arrays are in document order. A graph with `problems` is not to be deployed: the definition is
 * refused whole, listing them. Only a graph without problems is complete (every task has its
 * bean name and activity type, every input its typed value).
 */
import type { ActivityKind, ActivityType } from '../catalogue.js';

/** The designer's input types (`camunda:inputParameter type="..."`). */
export { FAMILY_INPUT_TYPES as BPMN_INPUT_TYPES, type FamilyInputType as BpmnInputType } from '../../functions/activities/spec.js';
import type { FamilyInputType as BpmnInputType } from '../../functions/activities/spec.js';

/**
 * A typed input value. `${...}` expressions stay strings (resolved at run time), whatever the
 * type, except the literals `${60}` and `${true}`, which are the number and the boolean. `null`
 * is an empty parameter, as Camunda reads it.
 */
export type BpmnInputValue = string | number | boolean | readonly string[] | Readonly<Record<string, string>> | null;

export interface BpmnInput {
  /** The designer's label (`labelName`); `name` when there is no label. */
  readonly label: string;
  /** The parameter's `name` attribute (the family's variable name for it), when given. */
  readonly variable?: string;
  readonly type: BpmnInputType;
  readonly value: BpmnInputValue;
}

export interface BpmnElement {
  readonly id: string;
  readonly name?: string;
}

export interface BpmnStartEvent extends BpmnElement {
  readonly kind: 'startEvent';
}

export interface BpmnEndEvent extends BpmnElement {
  readonly kind: 'endEvent';
  /**
   * An error end event (`errorEventDefinition errorRef` naming a `bpmn:error`): the journey ends
   * as declined (COMPLETED_ENDED_ERROR) with that error's code. Absent for a plain end.
   */
  readonly error?: { readonly errorRef: string; readonly errorCode: string };
  /**
   * The final screen the family's end listener `${redirectMapperV1}` names (its `screenId`, else
   * `stepId`, else the first of `screens`: `thank-you`).
   */
  readonly screen?: string;
}

/**
 * A service task. `serviceTask`: `camunda:delegateExpression="${bean}"`, the engine runs it.
 * `userStep`: `camunda:type="external"`, the start execution listener's `delegateExpression`
 * names the activity and the journey waits for the end user.
 */
export interface BpmnTask extends BpmnElement {
  readonly kind: 'serviceTask' | 'userStep';
  /** The bean name inside `${...}`; missing only when a problem says so. */
  readonly beanName?: string;
  /** A user step's end execution listener bean (`customDataFormWriterV1`), when it has one. */
  readonly endBeanName?: string;
  /** The activity the bean name resolves to (the specs' `family.beans`); missing only when a problem says so. */
  readonly activityType?: ActivityType;
  /** The catalogue's kind of that activity: the compiler goes by this, not by how the BPMN wrote the task. */
  readonly activityKind?: ActivityKind;
  /** By label. */
  readonly inputs: Readonly<Record<string, BpmnInput>>;
  /** `camunda:outputParameter`: process variable name → its expression (null when empty). */
  readonly outputs: Readonly<Record<string, string | null>>;
}

export interface BpmnExclusiveGateway extends BpmnElement {
  readonly kind: 'exclusiveGateway';
  /** The id of the default flow, taken when no condition holds. */
  readonly default?: string;
}

export interface BpmnSequenceFlow extends BpmnElement {
  readonly source: string;
  readonly target: string;
  /** The `conditionExpression` text (a JUEL expression such as `${_photoConfirmed!=true}`), trimmed. */
  readonly condition?: string;
}

/** A `bpmn:error` root element: what error boundary events match by `errorCode`. */
export interface BpmnErrorDefinition extends BpmnElement {
  readonly errorCode?: string;
  readonly errorMessage?: string;
}

export interface BpmnTimerTrigger {
  readonly kind: 'timer';
  /** The ISO 8601 duration as written (`PT30M`). */
  readonly duration: string;
  /** The same in whole seconds (rounded up): the user step's timeout. */
  readonly seconds: number;
}

export interface BpmnErrorTrigger {
  readonly kind: 'error';
  /** The id of the `bpmn:error` it names. */
  readonly errorRef: string;
  /** That error's code (camelCase in the family: `extIdNotUnique`, `failedFaceMatch`). */
  readonly errorCode: string;
  readonly errorCodeVariable?: string;
  readonly errorMessageVariable?: string;
}

export interface BpmnBoundaryEvent extends BpmnElement {
  readonly kind: 'boundaryEvent';
  /** The id of the task it is attached to. */
  readonly attachedTo: string;
  /** Always true in a graph without problems: only interrupting boundary events are supported. */
  readonly cancelActivity: boolean;
  readonly trigger: BpmnTimerTrigger | BpmnErrorTrigger;
}

export type BpmnNode = BpmnStartEvent | BpmnEndEvent | BpmnTask | BpmnExclusiveGateway | BpmnBoundaryEvent;

export type BpmnProblemCode =
  /** Not well-formed XML, or not BPMN 2.0 definitions. */
  | 'INVALID_XML'
  /** No executable process, or more than one process. */
  | 'PROCESS'
  /** An element or a variant of one the service does not run (parallel gateway, subprocess, message event, ...). */
  | 'UNSUPPORTED_ELEMENT'
  /** A task that names no activity (no `${bean}` delegate expression or start listener). */
  | 'MISSING_ACTIVITY'
  /** A bean name that is no activity's alias, or a user step's end listener that belongs to another activity. */
  | 'UNKNOWN_ACTIVITY'
  /** An error boundary event without an `errorRef`, or naming no `bpmn:error`. */
  | 'MISSING_ERROR_REF'
  /** The `bpmn:error` an error boundary event names has no `errorCode`. */
  | 'MISSING_ERROR_CODE'
  /** A timer that is not an ISO 8601 `timeDuration` of fixed length. */
  | 'INVALID_TIMER'
  /** A condition that is not a JUEL formal expression. */
  | 'INVALID_CONDITION'
  /** An input parameter without a label, of an unknown type, given twice, or whose value does not fit its type. */
  | 'INVALID_INPUT'
  /** A reference (`sourceRef`, `targetRef`, `attachedToRef`, `default`) to an element that does not exist. */
  | 'UNRESOLVED_REFERENCE'
  // The codes below come from turning the graph into a definition (to-definition.ts).
  /** A task, start event or boundary event with more than one outgoing flow: a journey follows one path at a time. */
  | 'PARALLEL_SPLIT'
  /** A condition on a flow that does not leave an exclusive gateway. */
  | 'CONDITIONAL_FLOW'
  /** A flow out of a branching exclusive gateway that has no condition and is not its default. */
  | 'MISSING_CONDITION'
  /** A start event, boundary event or gateway with no outgoing flow. */
  | 'MISSING_FLOW'
  /** A flow the journey cannot take: out of an end event, into a start or boundary event, a default that is not the gateway's own flow, a loop of merging gateways. */
  | 'INVALID_FLOW'
  /** An error boundary event whose error code is none of its activity's error events. */
  | 'UNKNOWN_ERROR_CODE'
  /** A second timer on one task, or a second error boundary event for the same error event. */
  | 'DUPLICATE_BOUNDARY';

export interface BpmnProblem {
  readonly code: BpmnProblemCode;
  /** The BPMN id of the element; missing only for XML that could not be read. */
  readonly id?: string;
  /** Its BPMN type, such as `bpmn:ParallelGateway`. */
  readonly element?: string;
  /** For UNKNOWN_ACTIVITY: the bean name that names nothing. */
  readonly beanName?: string;
  /** For INVALID_INPUT: the input's label. */
  readonly input?: string;
  readonly message: string;
}

export interface BpmnGraph {
  /** The executable process, or null when there is none (a problem says why). */
  readonly process: (BpmnElement & { readonly isExecutable: boolean }) | null;
  readonly startEvents: readonly BpmnStartEvent[];
  readonly endEvents: readonly BpmnEndEvent[];
  readonly tasks: readonly BpmnTask[];
  readonly gateways: readonly BpmnExclusiveGateway[];
  readonly flows: readonly BpmnSequenceFlow[];
  readonly boundaryEvents: readonly BpmnBoundaryEvent[];
  readonly errors: readonly BpmnErrorDefinition[];
  /** Everything the service cannot run, each with the element's id: the definition is refused whole when any. */
  readonly problems: readonly BpmnProblem[];
}
