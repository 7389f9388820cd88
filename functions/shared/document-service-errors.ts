/**
 * How a call to a tenant's own document service (Regula Document Reader) failed, as its adapter
 * raises it and the document steps sort it: the storage layer and the steps both import these, so
 * they live here, not in an area's model.
 */

/** A tenant's document service cannot be used as configured (a refused address, a 4xx, not its answer): the configuration's fault, not the end user's. */
export class DocumentServiceUnusable extends Error {
  override readonly name = 'DocumentServiceUnusable';
}

/** A tenant's document service did not answer in time, or answered 429 or 5xx: worth trying again. */
export class DocumentServiceUnavailable extends Error {
  override readonly name = 'DocumentServiceUnavailable';
}
