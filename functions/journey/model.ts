/**
 * What the journey keeps of a Switch Device step beside the instance (functions/journey/devices.ts),
 * and the storage it needs (functions/store/switch-devices.ts). Each item is in the instance's
 * partition and expires with it.
 */
import type { JourneyHolder } from '../process-manager/model.js';

/** A device a switch link gave the journey to: its own capability, kept only as a hash. */
export interface SwitchDeviceRecord {
  /** SHA-256 (hex) of the device's capability, as the instance keeps its own. */
  capabilityHash: string;
  /** The Switch Device step whose link made it. */
  activityId: string;
  createdAt: string;
  expiresAt: number;
}

/**
 * A switch link, kept when its step's page first shows it: only the SHA-256 of its secret (the
 * secret is derived from the showing device's capability, which the table does not hold).
 */
export interface SwitchLinkRecord {
  /** SHA-256 (base64url) of the link's secret: the item's key. */
  secretHash: string;
  /** The step it was made for, and which visit of it (SHA-256 of its task token, base64url). */
  activityId: string;
  step: string;
  /** The capability hash of the device that showed it (it must still hold the journey when the link is opened). */
  issuer: string;
  createdAt: string;
  /** The instance's: a link never outlives its journey. */
  expiresAt: number;
  /** When it was opened: from then on it hands its step over, and makes one device at most. */
  openedAt?: string;
  /** The capability hash of the device it made: from then on it is used up. */
  device?: string;
}

export interface SwitchDeviceStore {
  /** A device of the instance by its capability hash, unless it has expired. */
  getDevice(tenantId: string, id: string, capabilityHash: string, now: Date): Promise<SwitchDeviceRecord | undefined>;
  /** Keeps a link the first time its page shows it; showing it again (the same secret) changes nothing. */
  putLink(tenantId: string, id: string, link: SwitchLinkRecord): Promise<void>;
  /** A link by the hash of its secret, unless it has expired. */
  getLink(tenantId: string, id: string, secretHash: string, now: Date): Promise<SwitchLinkRecord | undefined>;
  /**
   * Marks a link opened, in one transaction with a check that the journey still waits, unclaimed,
   * at the step with `taskToken`: false when either does not hold (opened already, or the step moved on).
   */
  openLink(tenantId: string, id: string, secretHash: string, taskToken: string, at: string): Promise<boolean>;
  /**
   * One transaction: the device, the instance's new holder, and the link marked as having made
   * it. Only while the link is opened and has made no device, and the instance's holder is still
   * `previousHolder` (undefined: the instance's own link, with no holder recorded); false otherwise.
   */
  grantDevice(
    tenantId: string,
    id: string,
    grant: { secretHash: string; device: SwitchDeviceRecord; holder: JourneyHolder; previousHolder: string | undefined },
  ): Promise<boolean>;
  /** The journey moves to `holder`, only if its holder is still `expected` (a capability hash); false otherwise. */
  moveHolder(tenantId: string, id: string, holder: JourneyHolder, expected: string): Promise<boolean>;
}
