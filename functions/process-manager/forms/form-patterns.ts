/**
 * The publish-time half of running tenants' patterns on RE2 (functions/shared/tenant-regex.ts):
 * a data form whose `validate.pattern` RE2 cannot run (lookaround, backreferences) is refused
 * when it is saved, with the place of each such pattern, rather than failing an end user later.
 */
import { ValidationError, type ErrorDetail } from '../../errors.js';
import { parseCustomDataFormResource, type DataForm } from '../../../statemachines/forms.js';
import type { ProcessDefinition } from '../../../statemachines/definition.js';
import { tenantPatternProblem } from '../../shared/tenant-regex.js';

/** Each pattern of the form RE2 cannot run, located under `at` (`body.resource`). */
export async function unrunnableFormPatterns(form: DataForm, at: string): Promise<ErrorDetail[]> {
  const out: ErrorDetail[] = [];
  for (const [i, c] of form.components.entries()) {
    const pattern = c.validate?.pattern;
    if (pattern == null) continue;
    const problem = await tenantPatternProblem(pattern);
    if (problem) out.push({ location: `${at}.components.${i}.validate.pattern`, message: problem });
  }
  return out;
}

/** The same for every form a definition holds inline (an input whose value is a data form). */
export async function unrunnableDefinitionPatterns(activities: ProcessDefinition['activities']): Promise<ErrorDetail[]> {
  const out: ErrorDetail[] = [];
  for (const [id, activity] of Object.entries(activities)) {
    for (const [name, value] of Object.entries(activity.inputs)) {
      if (value && typeof value === 'object' && !Array.isArray(value) && Array.isArray((value as { components?: unknown }).components)) {
        out.push(...(await unrunnableFormPatterns(value as DataForm, `activities.${id}.inputs.${name}`)));
      }
    }
  }
  return out;
}

/** A data form version's `resource` (already parsed by the route's schema): 400 naming each pattern RE2 cannot run. */
export async function checkFormPatterns(resource: string): Promise<void> {
  const parsed = parseCustomDataFormResource(resource);
  if (!parsed.ok) return;
  const problems = await unrunnableFormPatterns(parsed.form, 'body.resource');
  if (problems.length > 0) throw new ValidationError('The data form has patterns this service cannot run.', problems);
}
