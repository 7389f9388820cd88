/**
 * bpmn-moddle with the Camunda extension, and the few shapes of its model the parser reads.
 *
 * camunda-bpmn-moddle exports only its JSON descriptor (no entry point), imported with a JSON
 * import attribute: tsx and esbuild both inline it, so a Lambda bundle needs no file beside it.
 */
import { BpmnModdle, type FromXmlResult } from 'bpmn-moddle';
import camunda from 'camunda-bpmn-moddle/resources/camunda.json' with { type: 'json' };

export interface MElement {
  readonly $type: string;
  readonly id?: string;
  readonly name?: string;
  /** Attributes the model does not know (the family's `labelName` and `type` on input parameters). */
  readonly $attrs?: Readonly<Record<string, string>>;
}

export interface MExpression extends MElement {
  readonly body?: string;
  readonly language?: string;
}

export interface MValue extends MElement {
  readonly value?: string;
  readonly key?: string;
  readonly definition?: MDefinition;
}

/** `camunda:List`, `camunda:Map`, `camunda:Value` or `camunda:Script`. */
export interface MDefinition extends MElement {
  readonly items?: readonly MDefinition[];
  readonly entries?: readonly MValue[];
  readonly value?: string;
}

export interface MParameter extends MElement {
  readonly value?: string;
  readonly definition?: MDefinition;
}

export interface MExtension extends MElement {
  /** camunda:ExecutionListener */
  readonly event?: string;
  readonly delegateExpression?: string;
  /** camunda:InputOutput */
  readonly inputParameters?: readonly MParameter[];
  readonly outputParameters?: readonly MParameter[];
}

export interface MEventDefinition extends MElement {
  readonly timeDuration?: MExpression;
  readonly timeDate?: MExpression;
  readonly timeCycle?: MExpression;
  readonly errorRef?: MError;
  readonly errorCodeVariable?: string;
  readonly errorMessageVariable?: string;
}

export interface MError extends MElement {
  readonly errorCode?: string;
  readonly errorMessage?: string;
}

export interface MFlowElement extends MElement {
  // sequence flows
  readonly sourceRef?: MElement;
  readonly targetRef?: MElement;
  readonly conditionExpression?: MExpression;
  // gateways
  readonly default?: MElement;
  // events
  readonly eventDefinitions?: readonly MEventDefinition[];
  readonly attachedToRef?: MElement;
  readonly cancelActivity?: boolean;
  // service tasks (camunda:type, camunda:delegateExpression, camunda:class, camunda:expression)
  readonly type?: string;
  readonly delegateExpression?: string;
  readonly class?: string;
  readonly expression?: string;
  readonly loopCharacteristics?: MElement;
  readonly extensionElements?: { readonly values?: readonly MExtension[] };
}

export interface MProcess extends MElement {
  readonly isExecutable?: boolean;
  readonly flowElements?: readonly MFlowElement[];
}

export interface MCollaboration extends MElement {
  readonly messageFlows?: readonly MElement[];
}

export interface MDefinitions extends MElement {
  readonly rootElements?: readonly MElement[];
}

// One moddle for every parse and write: building its type registry is the costly part, and
// neither fromXML nor create keeps state in it.
let moddle: ReturnType<typeof BpmnModdle> | undefined;

/** The moddle with the Camunda extension. */
export function bpmnModdle(): ReturnType<typeof BpmnModdle> {
  moddle ??= BpmnModdle({ camunda: camunda as Record<string, unknown> });
  return moddle;
}

export function readBpmnXml(xml: string): Promise<FromXmlResult> {
  return bpmnModdle().fromXML(xml);
}
