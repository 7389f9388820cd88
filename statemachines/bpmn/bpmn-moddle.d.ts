/**
 * bpmn-moddle 10 ships types for its model (`bpmn-moddle/types`) but none for its entry point,
 * so this declares the one call the parser makes. The parser reads the elements through its own
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

  export interface BpmnModdleInstance {
    fromXML(xml: string, options?: { readonly lax?: boolean }): Promise<FromXmlResult>;
  }

  /** A moddle for BPMN 2.0 with extra packages (here `camunda`); not a class: it is called plainly. */
  export function BpmnModdle(packages?: Record<string, unknown>, options?: Record<string, unknown>): BpmnModdleInstance;
}
