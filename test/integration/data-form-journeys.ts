import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from './client.js';

/** A data form in the family's format with one component of every type (test/fixtures/forms). */
export const applicantForm = readFileSync(join(import.meta.dirname, '../fixtures/forms/applicant.json'), 'utf8');

/** Uploads a form as the family's deployment tools do: the resource as a JSON string, the version as a string. */
export async function uploadForm(token: string, name: string, resource = applicantForm, status = 'DRAFT'): Promise<{ id: string; version: number }> {
  const res = await call('POST', '/api/process-manager/customDataForms', {
    token,
    body: { name, description: 'applicant details', version: '1', status, creationOption: 'NEW', resource, tenantId: 'demo' },
  });
  if (res.status !== 201) throw new Error(`form upload failed: ${res.status} ${res.text}`);
  return res.json;
}

/**
 * The applicant's details from a stored form (at most 2 refused submissions), then a read-only
 * confirmation of them with a Retake button that goes back to the details; PASS when confirmed,
 * FAIL when the details ran out of attempts.
 */
export const applicantJourney = (name: string, formName: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'details',
  activities: {
    details: {
      type: 'DATA_FORM',
      name: 'Applicant details',
      inputs: { 'Data form name': formName, 'Data form version': '${1}', 'Form data Key': 'details', 'Max Attempts': 2 },
      errorEvents: { 'Max Attempts Exceeded': 'decide' },
      next: 'confirm',
    },
    confirm: {
      type: 'DATA_FORM',
      name: 'Confirm',
      inputs: {
        'Form data Key': 'confirmed',
        'Read Only': true,
        'Show Retake Button': true,
        Form: {
          title: { values: { en: 'Is this right?', de: 'Stimmt das?' } },
          components: [
            { type: 'text', id: 'firstName', label: { values: { en: 'First name', de: 'Vorname' } }, default: '${details.firstName}' },
            { type: 'text', id: 'city', label: { values: { en: 'City', de: 'Stadt' } }, default: '${details.city}' },
            { type: 'radio', id: 'document', label: { values: { en: 'Your document', de: 'Ihr Dokument' } }, default: '${details.document}', values: [{ value: 'passport', label: { values: { en: 'Passport', de: 'Reisepass' } } }, { value: 'idCard', label: { values: { en: 'ID card', de: 'Personalausweis' } } }] },
          ],
          submitButton: { label: { values: { en: 'Confirm', de: 'Bestätigen' } } },
        },
      },
      errorEvents: { Retake: 'details' },
      next: 'decide',
    },
    decide: {
      type: 'SIMPLE_DECIDER',
      rules: [{ when: { errorEvent: { activity: 'details', name: 'Max Attempts Exceeded' } }, outcome: 'FAIL' }],
      default: 'PASS',
    },
  },
});

/**
 * A form as the family's visual builder saves it (test/fixtures/forms/family-builder.json): a
 * string version, the builder's `type` / `isValid` / `index` members, texts as language maps in
 * `values`, a closable and a timed notification, two fields with id `password`, and template
 * defaults (`{{processvar._checks.cloudFunctions.DocumentParseV6...}}`, `{{processvar.firstName}}`).
 */
export const builderForm = readFileSync(join(import.meta.dirname, '../fixtures/forms/family-builder.json'), 'utf8');

/** The document number the stand-in for the family's document parser reads. */
export const DOCUMENT_NUMBER = 'C01X00T47';

/**
 * A cloud function standing in for the family's document parser: it returns what the family
 * keeps of it under `_checks.cloudFunctions.DocumentParseV6` (a function's variables join the
 * journey's `vars`, where `{{processvar._checks...}}` finds them first: references.ts).
 */
export async function addDocumentParser(token: string, name: string): Promise<void> {
  const source = `export const handler = () => ({ _checks: { cloudFunctions: { DocumentParseV6: { metaData: { ruleResults: { doc: { documentNumber: '${DOCUMENT_NUMBER}' } } } } } } });`;
  const res = await call('POST', '/api/process-manager/cloudFunctions', { token, body: { name, source, status: 'DEPLOYED_ACTIVE' } });
  if (res.status !== 201) throw new Error(`cloud function upload failed: ${res.status} ${res.text}`);
}

/** The document parsed (the cloud function `parser`), then the builder's form by name under `account`; PASS. */
export const builderJourney = (name: string, formName: string, parser: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'parse',
  activities: {
    parse: { type: 'EXECUTE_CLOUD_FUNCTION_V2', name: 'Parse the document', inputs: { 'Function Name': parser }, next: 'account' },
    account: {
      type: 'DATA_FORM',
      name: 'Account',
      inputs: { 'Data form name': formName, 'Data form version': '${1}', 'Form data Key': 'account' },
      next: 'decide',
    },
    decide: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
  },
});
