import { additionalSession, capturedIds, configOf, requirementsMet } from '../shared/additional-documents.js';
import { activityError, withVar, type ServiceRun } from './contract.js';
import { spec } from './specs/additional-capture-decider.js';

/**
 * Where the additional documents loop goes, from `_additionalDocuments.{Add Doc Key}`:
 * `_additionalCaptureFinished` when the end user said finished or every document offered is
 * captured; `_additionalDocsFinished` when every required document and at least
 * minAdditionalDocuments are captured. Both process variables, for gateways.
 */
export const run: ServiceRun<typeof spec> = async ({ activityId, inputs, session }) => {
  const config = configOf('Additional Capture Decider', activityId, inputs['Additional Documents'], (m) => activityError(spec, 'InvalidInput', m));
  const addDocKey = inputs['Add Doc Key'];
  const captured = capturedIds(session, addDocKey);
  const docsFinished = requirementsMet(config, captured);
  const everyOne = config.documents.every((d) => captured.has(d.id));
  const captureFinished = additionalSession(session, addDocKey).finished === true || everyOne;
  return withVar(withVar(session, '_additionalCaptureFinished', captureFinished), '_additionalDocsFinished', docsFinished);
};
