/**
 * The user data area's storage, put together here and only here: the handlers read through
 * `userData`, the expiry handler deletes through `images`.
 */
import type { InstanceImageStore } from '../process-manager/model.js';
import { imageStore } from '../store/images.js';
import { keys } from '../store/keys.js';
import { processInstanceStore } from '../store/process-instances.js';
import type { UserDataStorage } from './user-data.js';

export const userData: UserDataStorage = { instances: processInstanceStore, images: imageStore };
export const images: InstanceImageStore = imageStore;
/** The instance an instance item's key names (a DynamoDB stream record carries only keys). */
export const instanceOfKey = keys.parseInstance;
