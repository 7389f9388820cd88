/**
 * What a service step keeps beside the instance, as a user step's submission does: its values,
 * its check and its images, in user data (and so in the archive), expiring with the instance.
 */
import type { StepUserData } from '../process-manager/model.js';
import type { ServiceContext } from './contract.js';
import type { ActivitySpec } from './spec.js';
import { forceCheck, forcedOutcome, sessionSandbox } from '../process-manager/sandbox.js';

export async function keepStepData(
  ctx: Pick<ServiceContext<ActivitySpec>, 'tenantId' | 'session' | 'activityId' | 'now' | 'expiresAt' | 'deps'>,
  data: Pick<StepUserData, 'activityType' | 'dataKey' | 'values' | 'check' | 'images'>,
): Promise<void> {
  // Without the instance's expiry (an execution from before sessions were kept in the table) nothing is kept beside it.
  if (ctx.expiresAt === undefined) return;
  // In test mode a check the token forces is kept forced, with what it found (sandbox.ts).
  const forced = data.check && forcedOutcome(sessionSandbox(ctx.session), data.check.checkId);
  await ctx.deps.instances.putUserData(
    ctx.tenantId,
    ctx.session.instance.processInstanceId,
    { activityId: ctx.activityId, submittedAt: ctx.now.toISOString(), ...data, ...(forced && data.check ? { check: forceCheck(data.check, forced) } : {}) },
    ctx.expiresAt,
  );
}
