import { describe, expect, it } from 'vitest';
import {
  CUSTOM_DATA_FORM_COMPONENT_TYPES,
  parseCustomDataFormResource,
} from '../../functions/process-manager/forms/custom-data-form-schema.js';
import { CUSTOM_DATA_FORM_TRANSITIONS } from '../../functions/process-manager/forms/custom-data-forms.js';
import { CUSTOM_DATA_FORM_STATUSES } from '../../functions/process-manager/model.js';

const form = (components: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ title: { values: { en: 'T' } }, components, ...extra });

describe('the family data form format', () => {
  it('takes every component type the designer offers', () => {
    const components = CUSTOM_DATA_FORM_COMPONENT_TYPES.map((type, i) => ({ type, id: `c${i}`, label: { values: { en: type } } }));
    const parsed = parseCustomDataFormResource(form(components));
    expect(parsed.ok).toBe(true);
  });

  it('reads numbers and booleans sent as strings, null as absent, and keeps unknown members', () => {
    const parsed = parseCustomDataFormResource(
      form(
        [{ type: 'text', id: 'a', readOnly: 'false', validate: { required: 'true', minLength: '2', maxLength: null, custom: 1 }, layout: { col: 2 } }],
        { version: '3', subtitle: null, theme: 'dark' },
      ),
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const c = parsed.form.components[0]!;
    expect(c.readOnly).toBe(false);
    expect(c.validate).toMatchObject({ required: true, minLength: 2, maxLength: null, custom: 1 });
    expect((c as Record<string, unknown>).layout).toEqual({ col: 2 });
    expect(parsed.form.version).toBe(3);
    expect((parsed.form as Record<string, unknown>).theme).toBe('dark');
  });

  it('names every problem with its path inside the resource', () => {
    const parsed = parseCustomDataFormResource(
      form([
        { type: 'text', id: 'a', validate: { required: 'maybe' } },
        { type: 'select', id: 'b', values: { en: 'Not choices' } },
        { type: 'phone', id: 'p', defaultCountry: 'Britain' },
        // A width the page cannot use is kept and ignored, not refused.
        { type: 'image', id: 'i', src: 'http://insecure.example/x.png', width: 'wide' },
        { type: 'text', id: 't', default: '{{env.SECRET}}' },
      ]),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues.map((i) => i.path.join('.')).sort()).toEqual(
      ['components.0.validate.required', 'components.1.values', 'components.2.defaultCountry', 'components.3.src', 'components.4.default'].sort(),
    );
  });

  it('refuses what is not a JSON object', () => {
    for (const resource of ['', 'nope', '[]', '"form"', 'null']) {
      const parsed = parseCustomDataFormResource(resource);
      expect(parsed.ok, resource).toBe(false);
    }
  });
});

describe('the data form lifecycle', () => {
  it('has a rule for every status, never leads back to DRAFT, and ends at ARCHIVED', () => {
    expect(Object.keys(CUSTOM_DATA_FORM_TRANSITIONS).sort()).toEqual([...CUSTOM_DATA_FORM_STATUSES].sort());
    for (const to of Object.values(CUSTOM_DATA_FORM_TRANSITIONS)) expect(to).not.toContain('DRAFT');
    expect(CUSTOM_DATA_FORM_TRANSITIONS.ARCHIVED).toEqual([]);
    for (const [from, to] of Object.entries(CUSTOM_DATA_FORM_TRANSITIONS)) if (from !== 'ARCHIVED') expect(to).toContain('ARCHIVED');
  });
});
