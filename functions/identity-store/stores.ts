import { ConflictError, NotFoundError, ValidationError } from '../errors.js';

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

export interface PasscodePolicy {
  description?: string;
  requirements: PasscodeRequirements;
}

export type StoreType = 'STANDARD' | 'APPKEY';

export interface IdentityStoreRecord {
  tenantId: string;
  name: string;
  description: string;
  type: StoreType;
  passcodePolicies: Record<string, PasscodePolicy>;
  createdDtm: string;
  createdBy: string;
  lastUpdatedDtm: string;
  lastUpdatedBy: string;
  /** Optimistic lock: every update is written only over the version it read. */
  version: number;
}

export interface IdentityStoreStore {
  /** False when the name is taken. */
  create(record: IdentityStoreRecord): Promise<boolean>;
  get(tenantId: string, name: string): Promise<IdentityStoreRecord | undefined>;
  list(tenantId: string): Promise<IdentityStoreRecord[]>;
  /** False when the stored version is no longer `expectedVersion`. */
  replace(record: IdentityStoreRecord, expectedVersion: number): Promise<boolean>;
}

export class IdentityStoreNotFoundError extends NotFoundError {
  override readonly code = 'STORE_NOT_FOUND';
  constructor(name: string) {
    super(`Identity store ${name} was not found.`);
  }
}

export class IdentityStoreExistsError extends ConflictError {
  override readonly code = 'STORE_EXISTS';
}

export class PolicyNotFoundError extends NotFoundError {
  override readonly code = 'POLICY_NOT_FOUND';
}

/** The most earlier passcodes a policy can refuse (each user keeps this many verifiers per policy). */
export const MAX_PASSCODE_HISTORY = 24;

export const DEFAULT_REQUIREMENTS: PasscodeRequirements = {
  minimumLength: 8,
  maximumLength: 64,
  digitCount: 0,
  symbolCount: 0,
  lowerCaseCount: 0,
  upperCaseCount: 0,
  characterVariety: 0,
  passcodeHistory: 0,
  requiredRegExes: [],
  allowedRegExes: [],
  disallowedRegExes: [],
};

/**
 * Checks that a policy can be met and that its expressions are safe to run: each compiles as a
 * JavaScript expression with the `u` flag (the browser checks them as the end user types), and
 * the counts fit inside the maximum length.
 */
export function checkPasscodePolicy(name: string, policy: PasscodePolicy): void {
  const r = policy.requirements;
  const at = `body.passcodePolicies.${name}.requirements`;
  const problems: { location: string; message: string }[] = [];
  if (r.minimumLength > r.maximumLength) problems.push({ location: `${at}.minimumLength`, message: 'must not be more than maximumLength' });
  const counted = r.digitCount + r.symbolCount + r.lowerCaseCount + r.upperCaseCount;
  if (counted > r.maximumLength) problems.push({ location: at, message: `the character counts (${counted}) exceed maximumLength` });
  for (const list of ['requiredRegExes', 'allowedRegExes', 'disallowedRegExes'] as const) {
    r[list].forEach((rule, i) => {
      try {
        new RegExp(rule.pattern, 'u');
      } catch (err) {
        problems.push({ location: `${at}.${list}.${i}.pattern`, message: `not a valid expression: ${(err as Error).message}` });
      }
    });
  }
  if (problems.length) throw new ValidationError(`Passcode policy ${name} cannot be used.`, problems);
}

/** Which of a passcode's requirements a passcode breaks (the browser runs the same rules as the end user types). */
export function passcodeProblems(passcode: string, r: PasscodeRequirements): string[] {
  const chars = [...passcode];
  const count = (re: RegExp) => chars.filter((c) => re.test(c)).length;
  const digits = count(/\p{Nd}/u);
  const lower = count(/\p{Ll}/u);
  const upper = count(/\p{Lu}/u);
  const symbols = chars.length - digits - lower - upper - count(/\s/u);
  const out: string[] = [];
  if (chars.length < r.minimumLength) out.push(`at least ${r.minimumLength} characters`);
  if (chars.length > r.maximumLength) out.push(`at most ${r.maximumLength} characters`);
  if (digits < r.digitCount) out.push(`at least ${r.digitCount} digits`);
  if (symbols < r.symbolCount) out.push(`at least ${r.symbolCount} symbols`);
  if (lower < r.lowerCaseCount) out.push(`at least ${r.lowerCaseCount} lower case letters`);
  if (upper < r.upperCaseCount) out.push(`at least ${r.upperCaseCount} upper case letters`);
  if ([digits, symbols, lower, upper].filter((n) => n > 0).length < r.characterVariety) {
    out.push(`at least ${r.characterVariety} kinds of character`);
  }
  for (const rule of r.requiredRegExes) if (!new RegExp(rule.pattern, 'u').test(passcode)) out.push(rule.error);
  if (r.allowedRegExes.length && !r.allowedRegExes.some((rule) => new RegExp(rule.pattern, 'u').test(passcode))) {
    out.push(...r.allowedRegExes.map((rule) => rule.error));
  }
  for (const rule of r.disallowedRegExes) if (new RegExp(rule.pattern, 'u').test(passcode)) out.push(rule.error);
  return out;
}

export function storeView(r: IdentityStoreRecord) {
  return {
    name: r.name,
    description: r.description,
    type: r.type,
    passcodePolicies: r.passcodePolicies,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
    lastUpdatedDtm: r.lastUpdatedDtm,
    lastUpdatedBy: r.lastUpdatedBy,
  };
}

export function newStore(input: {
  tenantId: string;
  name: string;
  description?: string | undefined;
  type?: StoreType | undefined;
  passcodePolicies?: Record<string, PasscodePolicy> | undefined;
  principal: string;
  now: Date;
}): IdentityStoreRecord {
  const policies = input.passcodePolicies ?? {};
  for (const [name, policy] of Object.entries(policies)) checkPasscodePolicy(name, policy);
  const at = input.now.toISOString();
  return {
    tenantId: input.tenantId,
    name: input.name,
    description: input.description ?? '',
    type: input.type ?? 'STANDARD',
    passcodePolicies: policies,
    createdDtm: at,
    createdBy: input.principal,
    lastUpdatedDtm: at,
    lastUpdatedBy: input.principal,
    version: 1,
  };
}

/** A partial update: what is given replaces what was (a policy map replaces the whole map). */
export function updatedStore(
  current: IdentityStoreRecord,
  change: { description?: string | undefined; passcodePolicies?: Record<string, PasscodePolicy> | undefined },
  principal: string,
  now: Date,
): IdentityStoreRecord {
  if (change.passcodePolicies) for (const [name, policy] of Object.entries(change.passcodePolicies)) checkPasscodePolicy(name, policy);
  return {
    ...current,
    ...(change.description !== undefined ? { description: change.description } : {}),
    ...(change.passcodePolicies ? { passcodePolicies: change.passcodePolicies } : {}),
    lastUpdatedDtm: now.toISOString(),
    lastUpdatedBy: principal,
    version: current.version + 1,
  };
}
