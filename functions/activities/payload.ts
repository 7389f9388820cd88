/**
 * The Task payload a compiled state machine sends the activity function, read by the contract it
 * names (functions/shared/activity-contract.ts). A payload of a contract this build does not
 * serve, or one that is not what its contract says, fails the step under a named error
 * (CONTRACT_ERRORS), never a TypeError deep in a module nor a silent misreading.
 */
import { CONTRACT_ERRORS, UNNUMBERED_CONTRACT, type ContractWindow } from '../shared/activity-contract.js';
import { ActivityError } from './contract.js';

/** A payload as the activity function works with it, whatever contract it came in. */
export interface Payload {
  contract: number;
  activityId: string;
  activityType: string;
  /** The step's inputs as the definition wrote them (references unresolved). */
  inputs: Record<string, unknown>;
  /** Output parameters: process variable → JUEL expression. */
  outputs?: Record<string, string>;
  /** The session paths the execution's state keeps; absent in state machines compiled before the session moved to the table. */
  keep?: string[];
  /** `{_ref, ...projection}`, or (executions started before the session moved to the table) the whole session. */
  state: Record<string, unknown>;
  taskToken?: string;
  /**
   * A user step's time in seconds (its timer boundary event, else its Step Timeout), which its
   * page may show (a custom page's `timeoutInSeconds`). Optional in contract 2: state machines
   * compiled before it was added do not send it, and a build before it ignores it.
   */
  timeoutSeconds?: number;
}

/** The step fails: its payload speaks a contract this build does not serve, or is not what its contract says. */
export class ContractError extends ActivityError {}

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

function bad(what: string): ContractError {
  return new ContractError(CONTRACT_ERRORS.BAD_PAYLOAD, `The activity payload is not what its contract says: ${what}.`);
}

/** A map the compiler wrote as JSON text (contract 2), or (contract 1) as text or as the object itself. */
function map(raw: Raw, field: 'inputs' | 'outputs', text: unknown, textOnly: boolean): Raw | undefined {
  if (text === undefined) return undefined;
  let value: unknown = text;
  if (typeof text === 'string') {
    try {
      value = JSON.parse(text);
    } catch {
      throw bad(`${field} is not JSON text`);
    }
  } else if (textOnly) {
    throw bad(`${field} is not JSON text`);
  }
  if (!isObject(value)) throw bad(`${field} is not an object`);
  if (field === 'outputs' && !Object.values(value).every((v) => typeof v === 'string')) throw bad('an output is not an expression');
  return value;
}

function common(raw: Raw, contract: number): Omit<Payload, 'inputs' | 'outputs' | 'keep'> {
  const { activityId, activityType, state, taskToken, timeoutSeconds } = raw;
  if (typeof activityId !== 'string' || activityId === '') throw bad('activityId is not a name');
  if (typeof activityType !== 'string' || activityType === '') throw bad('activityType is not a name');
  if (!isObject(state)) throw bad('state is not an object');
  if (taskToken !== undefined && typeof taskToken !== 'string') throw bad('taskToken is not text');
  if (timeoutSeconds !== undefined && !(typeof timeoutSeconds === 'number' && Number.isInteger(timeoutSeconds) && timeoutSeconds > 0)) throw bad('timeoutSeconds is not a whole number of seconds');
  return { contract, activityId, activityType, state, ...(taskToken !== undefined ? { taskToken } : {}), ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) };
}

function keepOf(keep: unknown): string[] | undefined {
  if (keep === undefined) return undefined;
  if (!Array.isArray(keep) || !keep.every((p) => typeof p === 'string')) throw bad('keep is not a list of paths');
  return keep;
}

/**
 * How each served contract's payload is read. Contract 1 is every payload state machines sent
 * before contracts were numbered, in the three forms they took: inputs and outputs as objects
 * (before they were JSON text), no `keep` and the whole session as the state (before the session
 * moved to the table), and the form 2 numbered. Contract 2 is that last form only.
 */
const READERS: Readonly<Record<number, (raw: Raw) => Payload>> = {
  1: (raw) => {
    const inputs = map(raw, 'inputs', raw.inputs, false) ?? {};
    const outputs = map(raw, 'outputs', raw.outputs, false) as Record<string, string> | undefined;
    const keep = keepOf(raw.keep);
    return { ...common(raw, 1), inputs, ...(outputs ? { outputs } : {}), ...(keep ? { keep } : {}) };
  },
  2: (raw) => {
    if (raw.inputs === undefined) throw bad('inputs are missing');
    const inputs = map(raw, 'inputs', raw.inputs, true)!;
    const outputs = map(raw, 'outputs', raw.outputs, true) as Record<string, string> | undefined;
    const keep = keepOf(raw.keep);
    if (!keep) throw bad('keep is missing');
    return { ...common(raw, 2), inputs, ...(outputs ? { outputs } : {}), keep };
  },
};

/** True when this build has a reader for the contract (a unit test holds the window to it). */
export function canRead(contract: number): boolean {
  return Object.hasOwn(READERS, contract);
}

/**
 * The payload, read by the contract it names (none: UNNUMBERED_CONTRACT), when `window` serves it.
 * Refused under a named error otherwise: Activity.ContractTooOld (a state machine compiled to a
 * contract this build no longer serves), Activity.ContractTooNew (one compiled by a newer build
 * than this code: a deploy under way), Activity.BadPayload (a contract that is no whole number, or fields
 * not as the contract has them).
 */
export function readPayload(raw: unknown, window: ContractWindow): Payload {
  if (!isObject(raw)) throw bad('it is not an object');
  const contract = raw.contract === undefined ? UNNUMBERED_CONTRACT : raw.contract;
  if (typeof contract !== 'number' || !Number.isInteger(contract) || contract < 0) throw bad('contract is not a whole number');
  const served = `this activity function serves contracts ${window.oldest} to ${window.current}`;
  if (contract > window.current) {
    throw new ContractError(
      CONTRACT_ERRORS.TOO_NEW,
      `The state machine speaks activity contract ${contract}; ${served}. A newer build compiled it: a deploy is under way, or was rolled back.`,
    );
  }
  const read = contract >= window.oldest && Object.hasOwn(READERS, contract) ? READERS[contract] : undefined;
  if (!read) {
    throw new ContractError(
      CONTRACT_ERRORS.TOO_OLD,
      `The state machine speaks activity contract ${contract}; ${served}. It is too old: its version must be activated again, to run on a state machine compiled now.`,
    );
  }
  return read(raw);
}
