/**
 * What the custom page host posts of a page's SEND (client/custom-page.ts): each variable as
 * text, and only what the step would keep (functions/activities/custom-page.ts checks the same).
 */
/** A variable name conditions can read, at most 100 of them, each value at most the journey form route's longest field: the step checks the same (functions/activities/custom-page.ts). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
export const MAX_VARIABLES = 100;
const MAX_VALUE = 10_000;
/** The field each variable is posted in: `var:{name}`. */
export const CUSTOM_PAGE_VARIABLE_PREFIX = 'var:';

/** A variable's value as the step keeps it: text. */
export function asText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  try {
    return JSON.stringify(value) ?? undefined;
  } catch {
    return String(value);
  }
}

/** The fields a SEND posts, or undefined when its variables are not what a page sends (not an object, a name conditions cannot read, too many, too long). */
export function sendFields(variables: unknown): [string, string][] | undefined {
  if (variables === undefined || variables === null) return [];
  if (typeof variables !== 'object' || Array.isArray(variables)) return undefined;
  const fields: [string, string][] = [];
  for (const [name, value] of Object.entries(variables as Record<string, unknown>)) {
    const text = asText(value);
    if (text === undefined) continue;
    if (!VARIABLE_NAME.test(name) || text.length > MAX_VALUE) return undefined;
    fields.push([name, text]);
  }
  return fields.length > MAX_VARIABLES ? undefined : fields;
}
