/**
 * The user data area's storage, put together here and only here: the handlers read instances
 * and images through it, the expiry handler deletes images through it. One binding per store,
 * so a handler's bundle carries only what it uses (the checks read no images).
 */
import type { InstanceImageStore } from '../process-manager/model.js';
import { imageStore } from '../adapters/images.js';
import { keys } from '../store/keys.js';
import { processInstanceStore } from '../store/process-instances.js';
import type { UserDataStorage } from './user-data.js';

export const instances: UserDataStorage['instances'] = processInstanceStore;
export const images: InstanceImageStore = imageStore;
/** The instance an instance item's key names (a DynamoDB stream record carries only keys). */
export const instanceOfKey = keys.parseInstance;
