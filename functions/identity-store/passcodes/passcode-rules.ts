/**
 * The rules of a passcode policy, checked where the passcode is: in the browser as the end user
 * types (the journey pages' passcode script bundles this module), never on the server, which
 * only ever sees the SRP verifier. Pure and browser-safe.
 */

/** A regular expression rule of a passcode policy, with the message shown when it is not met. */
export interface PasscodeRegex {
  pattern: string;
  error: string;
}

/** What a passcode must be (the spec's `passcodeRequirements`). */
export interface PasscodeRequirements {
  minimumLength: number;
  maximumLength: number;
  digitCount: number;
  symbolCount: number;
  lowerCaseCount: number;
  upperCaseCount: number;
  /** How many of the four classes (digits, symbols, lower case, upper case) it must mix. */
  characterVariety: number;
  /** How many earlier passcodes it must differ from. */
  passcodeHistory: number;
  requiredRegExes: PasscodeRegex[];
  allowedRegExes: PasscodeRegex[];
  disallowedRegExes: PasscodeRegex[];
}


/** One rule a passcode is checked against, with what the page shows for it. */
export interface PasscodeRule {
  /** `minimumLength`, `digitCount`, ..., `required-0`, `allowed`, `disallowed-2`. */
  id: string;
  /** The number the rule asks for, for rules that have one. */
  count?: number;
  /** The policy's own message, for expression rules. */
  message?: string;
  ok: boolean;
}

/** Every rule of the requirements that applies, and whether `passcode` meets it. */
export function passcodeRules(passcode: string, r: PasscodeRequirements): PasscodeRule[] {
  const chars = [...passcode];
  const count = (re: RegExp) => chars.filter((c) => re.test(c)).length;
  const digits = count(/\p{Nd}/u);
  const lower = count(/\p{Ll}/u);
  const upper = count(/\p{Lu}/u);
  const symbols = chars.length - digits - lower - upper - count(/\s/u);
  const variety = [digits, symbols, lower, upper].filter((n) => n > 0).length;
  const test = (pattern: string) => new RegExp(pattern, 'u').test(passcode);
  const out: PasscodeRule[] = [
    { id: 'minimumLength', count: r.minimumLength, ok: chars.length >= r.minimumLength },
    { id: 'maximumLength', count: r.maximumLength, ok: chars.length <= r.maximumLength },
  ];
  const counted: [string, number, number][] = [
    ['digitCount', r.digitCount, digits],
    ['symbolCount', r.symbolCount, symbols],
    ['lowerCaseCount', r.lowerCaseCount, lower],
    ['upperCaseCount', r.upperCaseCount, upper],
    ['characterVariety', r.characterVariety, variety],
  ];
  for (const [id, wanted, has] of counted) if (wanted > 0) out.push({ id, count: wanted, ok: has >= wanted });
  r.requiredRegExes.forEach((rule, i) => out.push({ id: `required-${i}`, message: rule.error, ok: test(rule.pattern) }));
  if (r.allowedRegExes.length) {
    out.push({ id: 'allowed', message: r.allowedRegExes.map((rule) => rule.error).join(' '), ok: r.allowedRegExes.some((rule) => test(rule.pattern)) });
  }
  r.disallowedRegExes.forEach((rule, i) => out.push({ id: `disallowed-${i}`, message: rule.error, ok: !test(rule.pattern) }));
  return out;
}
