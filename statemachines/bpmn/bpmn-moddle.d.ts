/**
 * bpmn-moddle 10 ships types for its model (`bpmn-moddle/types`) but none for its entry point,
 * so this declares the calls made here (fromXML to parse, create to build a document for the
 * writer). The parser reads the elements through its own
 * narrow interfaces (moddle.ts): it needs a handful of properties, and the generated model types
 * would not describe the family's extra attributes (`labelName`, `type`) anyway.
 */
declare module 'bpmn-moddle' {
  export interface FromXmlWarning {
    readonly message: string;
    /** The element the warning is about, when there is one (an unresolved reference, an unknown attribute). */
    readonly element?: { readonly $type: string; readonly id?: string };
    readonly property?: string;
    readonly value?: unknown;
  }

  export interface FromXmlResult {
    readonly rootElement: unknown;
    readonly warnings: readonly FromXmlWarning[];
  }

  /** A model element; `$attrs` holds attributes the model does not define (written as they are). */
  export interface ModdleElement {
    readonly $type: string;
    readonly $attrs: Record<string, string>;
    [property: string]: unknown;
  }

  export interface BpmnModdleInstance {
    fromXML(xml: string, options?: { readonly lax?: boolean }): Promise<FromXmlResult>;
    /** A new element of a type the model knows (`bpmn:ServiceTask`, `camunda:InputParameter`), with its properties. */
    create(type: string, properties?: Record<string, unknown>): ModdleElement;
  }

  /** A moddle for BPMN 2.0 with extra packages (here `camunda`); not a class: it is called plainly. */
  export function BpmnModdle(packages?: Record<string, unknown>, options?: Record<string, unknown>): BpmnModdleInstance;
}

/**
 * moddle-xml (bpmn-moddle's own XML reader and writer) ships no types. Its `Writer` is what
 * bpmn-moddle's `toXML` runs inside a promise; called directly it writes synchronously.
 */
declare module 'moddle-xml' {
  export class Writer {
    constructor(options?: { readonly format?: boolean; readonly preamble?: boolean });
    toXML(element: unknown): string;
  }
}
