import fc from 'fast-check';

/**
 * Names a tenant or an end user may choose that a plain object answers to without having them
 * (`obj.constructor` is Object, `obj.toString` a function): every place a definition, a form or a
 * session takes a name is tried with these, as the second attack run found them.
 */
export const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__lookupGetter__', 'prototype'] as const;

/** A name for a user-named place: mostly a prototype member's, sometimes an ordinary one. */
export const userName = (): fc.Arbitrary<string> =>
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) }, { weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,11}$/) });
