/**
 * The built-ins the prelude relies on, captured when its script is evaluated, before any of the
 * function's code runs: the function replacing `JSON.stringify` or `Object.defineProperty` later
 * changes nothing here. Other built-ins (String, Number, Promise, the error constructors, ...)
 * are read from the global object when used, as in the function's own code.
 */

export const stringify = JSON.stringify;
export const parse = JSON.parse;
export const ObjectKeys = Object.keys;
export const defineProperty = Object.defineProperty;
export const isView = ArrayBuffer.isView;
export const fromCharCode = String.fromCharCode;

/** Puts a global where the function's code finds it: writable and configurable as Web globals are, not enumerable. */
export function install(name: string, value: unknown): void {
  defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}

export function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}
