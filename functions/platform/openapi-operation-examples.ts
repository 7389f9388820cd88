/**
 * The examples of the OpenAPI document that the schemas alone cannot make realistic: the README's
 * flows (a definition, a process token, an instance and what it gathered) and the bodies whose
 * rules span members. Kept here rather than in the route files so that no handler's bundle
 * carries them; the document builder is their only reader. The rest are made from the schemas
 * (openapi-examples.ts). test/unit/openapi-examples.test.ts parses every one with its schema.
 */
import type * as z4 from 'zod/v4/core';
import type { routes } from '../routes.js';
import identityCheck from '../../statemachines/examples/identity-check.json' with { type: 'json' };

type Routes = typeof routes;
type BodyOf<K extends keyof Routes> = Routes[K]['request'] extends { body?: infer B } ? (B extends z4.$ZodType ? z4.input<B> : never) : never;

/** Per operation: its request body and the body of its main answer (the first 2xx with JSON). */
export type OperationExamples = { [K in keyof Routes]?: { request?: BodyOf<K>; response?: unknown } };

const AT = '2026-03-14T09:26:53.000Z';
/** A real bundle: a zip holding one index.html. */
const CUSTOM_PAGE_ZIP =
  'UEsDBBQACAAIAFtLblwAAAAAAAAAAAAAAAAKAAkAaW5kZXguaHRtbFVUBQAB3Sm1abNRTMlPLqksSFXIKMnNsbMpySzJSbVzzs8rTs0rsdGHcG0K7DxSc3LybfQL7ABQSwcI2r7BCy4AAAAxAAAAUEsBAgADFAAIAAgAW0tuXNq+wQsuAAAAMQAAAAoACQAAAAAAAAAAAKSBAAAAAGluZGV4Lmh0bWxVVAUAAd0ptWlQSwUGAAAAAAEAAQBBAAAAbwAAAAAA';
const LATER = '2026-03-14T09:29:57.230Z';
const TENANT = 'demo';
const DEFN_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const INSTANCE_ID = '0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30';
const TOKEN_ID = '3b241101-e2bb-4255-8caf-4136c566a962';
const KEY_ID = '5f0c6d7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

/** What a face capture's check keeps in `moreinfo`: JSON in a string, as the family sends it. */
const FACE_MOREINFO = {
  engine: 'embedded',
  faceCount: 1,
  face: { box: { left: 0.31, top: 0.22, width: 0.38, height: 0.41 }, pixels: 274, confidence: 0.99, pose: { yaw: 3.1, pitch: -4.2, roll: 0.8 }, quality: { sharpness: 61.5, brightness: 142 } },
  liveness: { score: 0.97, result: 'PASS', pass: 0.9, fail: 0.5 },
  thresholds: { minFacePixels: 112, minFaceShare: 0.1, maxYaw: 30, maxPitch: 30, maxRoll: 25, minSharpness: 20, brightness: [40, 220] },
};

export const FACE_CHECK = {
  checkId: 'selfie',
  activityId: 'captureFace',
  checkType: 'FACE_CAPTURE',
  result: 'PASS' as const,
  displayName: 'Face image capture',
  description: 'One face was found, usable and judged live (liveness 0.97).',
  moreinfo: JSON.stringify(FACE_MOREINFO),
  checkedAt: LATER,
  reports: [
    { name: 'format', result: 'PASS' as const, description: 'JPEG, 720×960 pixels, 148213 bytes, checked by its content.' },
    { name: 'face', result: 'PASS' as const, description: 'Exactly one face, 274 pixels across (112 or more passes).' },
    { name: 'liveness', result: 'PASS' as const, description: 'Liveness 0.97 (0.9 or more passes).' },
  ],
};

const published = {
  id: DEFN_ID,
  processDefinitionId: DEFN_ID,
  status: 'DEPLOYED_ACTIVE',
  themeId: null,
  serverType: null,
  processDefinitionType: null,
  attributes: null,
  createdDtm: AT,
  createdBy: `apikey:${KEY_ID}`,
};

const processToken = {
  id: TOKEN_ID,
  name: 'onboarding-web',
  description: 'New customers from the web sign-up.',
  status: 'ACTIVE',
  type: 'UNLIMITED',
  maxCount: null,
  counter: 12,
  validFromDtm: null,
  validToDtm: null,
  processDefnName: 'identity-check',
  processDefnVersion: '1',
  processDefnTag: null,
  uiUrl: `http://${TENANT}.fir.localhost:8080/journey`,
  parameters: { firstName: 'Ann' },
  processInstanceInit: null,
  maxProcessDuration: null,
  startProcessAddress: `http://${TENANT}.fir.localhost:8080/api/process-manager/processInstances/create?pt=${TOKEN_ID}`,
  createdDtm: AT,
  createdBy: `apikey:${KEY_ID}`,
};

const instance = {
  id: INSTANCE_ID,
  tenantId: TENANT,
  processDefnId: DEFN_ID,
  processDefnName: 'identity-check',
  processDefnVersion: 1,
  processTokenId: TOKEN_ID,
  status: 'COMPLETED_ENDED_SUCCESS',
  statusMapped: 'Accepted',
  createdAt: AT,
  lastUpdatedAt: LATER,
  elapsedMilliseconds: 184230,
  firstName: 'Ann',
  lastName: 'Lee',
  email: 'ann.lee@example.com',
  retentionDays: 90,
  expiringDtm: '2026-06-12T09:26:53.000Z',
};

const userData = {
  processInstanceId: INSTANCE_ID,
  processDefnId: DEFN_ID,
  processDefnName: 'identity-check',
  processDefnVersion: 1,
  status: 'COMPLETED_ENDED_SUCCESS',
  forms: { personalDetails: { firstName: 'Ann', lastName: 'Lee', email: 'ann.lee@example.com' } },
  steps: [
    { activityId: 'personalDetails', activityType: 'DATA_FORM', dataKey: 'personalDetails', submittedAt: '2026-03-14T09:27:41.000Z', values: { firstName: 'Ann', lastName: 'Lee', email: 'ann.lee@example.com' } },
    { activityId: 'captureFace', activityType: 'CAPTURE_FACE_IMAGE', dataKey: 'selfie', submittedAt: LATER, values: { captureId: '01JPC6Q8V4Z7R2M5N9K3T1W0XB' } },
  ],
  checks: [FACE_CHECK],
  images: [
    {
      imageKey: 'selfie',
      captureId: '01JPC6Q8V4Z7R2M5N9K3T1W0XB',
      kind: 'FACE',
      format: 'JPEG',
      contentType: 'image/jpeg',
      width: 720,
      height: 960,
      bytes: 148213,
      sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      capturedAt: LATER,
      data: '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHR…',
    },
  ],
};

/** The events of the instance above, as webhooks receive them (functions/events/catalogue.ts). */
const instanceData = { processInstanceId: INSTANCE_ID, processDefnId: DEFN_ID, processDefnName: 'identity-check', processDefnVersion: 1, processTokenId: TOKEN_ID };
const instanceEvent = (id: string, type: string, timestamp: string, data: Record<string, unknown>) => ({
  id,
  type,
  tenantId: TENANT,
  timestamp,
  subject: { type: 'process-instance' as const, id: INSTANCE_ID },
  data: { ...instanceData, ...data },
});
const INSTANCE_EVENTS = [
  instanceEvent('evt_01JPC6M2K8A3B4C5D6E7F8G9H0', 'process-instance.created', AT, { status: 'PENDING' }),
  instanceEvent('evt_01JPC6M2R1S2T3V4W5X6Y7Z8A9', 'process-instance.status-changed', '2026-03-14T09:26:55.120Z', { status: 'ACTIVE', previousStatus: 'PENDING' }),
  instanceEvent('evt_01JPC6M2V0B1C2D3E4F5G6H7J8', 'process-instance.step-changed', '2026-03-14T09:26:55.410Z', { activityId: 'personalDetails', activityType: 'DATA_FORM' }),
  instanceEvent('evt_01JPC6Q8V4Z7R2M5N9K3T1W0XC', 'process-instance.status-changed', LATER, { status: 'COMPLETED_ENDED_SUCCESS', previousStatus: 'ACTIVE' }),
  instanceEvent('evt_01JPC6Q8V4Z7R2M5N9K3T1W0XD', 'process-instance.completed', LATER, { status: 'COMPLETED_ENDED_SUCCESS' }),
];
const WEBHOOK_ID = '6a1f4c2e-8b3d-4e5f-9a0b-1c2d3e4f5a6b';

export const OPERATION_EXAMPLES: OperationExamples = {
  getProcessInstanceEvents: { response: { events: INSTANCE_EVENTS } },
  listInstanceWebhookDeliveries: {
    response: {
      deliveries: INSTANCE_EVENTS.slice(3).map((e, n) => ({
        webhookId: WEBHOOK_ID,
        eventId: e.id,
        eventType: e.type,
        eventTimestamp: e.timestamp,
        subjectId: INSTANCE_ID,
        status: 'DELIVERED',
        attempts: [{ at: n ? '2026-03-14T09:29:57.902Z' : '2026-03-14T09:29:57.655Z', status: 200, latencyMs: n ? 97 : 142 }],
      })),
    },
  },
  createProcessDefinition: {
    request: identityCheck as BodyOf<'createProcessDefinition'>,
    response: { ...identityCheck, ...published },
  },
  getProcessDefinition: { response: { ...identityCheck, ...published } },
  createProcessToken: {
    request: { name: 'onboarding-web', description: 'New customers from the web sign-up.', processDefnName: 'identity-check', processDefnVersion: '1', parameters: { firstName: 'Ann' } },
    response: { ...processToken, counter: 0 },
  },
  getProcessToken: { response: processToken },
  listProcessTokens: {
    response: {
      content: [processToken],
      pageable: { pageNumber: 0, pageSize: 20, offset: 0, paged: true, unpaged: false, sort: { sorted: true, unsorted: false, empty: false } },
      totalElements: 1,
      totalPages: 1,
      last: true,
      first: true,
      number: 0,
      size: 20,
      numberOfElements: 1,
      sort: { sorted: true, unsorted: false, empty: false },
      empty: false,
      nextCursor: null,
      totalElementsCapped: false,
    },
  },
  getProcessInstance: { response: instance },
  getUserData: { response: userData },
  getUserDataChecks: { response: [FACE_CHECK] },
  addCustomPage: {
    // The family's deploy script body: a bundle (a zip holding index.html) as base64.
    request: { name: 'Consents', description: 'Consent screen', archive: CUSTOM_PAGE_ZIP, creationOption: 'Save & Deploy' },
  },
  previewCustomPage: { request: { archive: CUSTOM_PAGE_ZIP } },
  updateCustomPage: { request: { description: 'Consent screen, reworded', archive: CUSTOM_PAGE_ZIP } },
  addCustomDataForm: {
    request: {
      name: 'onboarding-details',
      description: 'Name and e-mail, as in the identity document.',
      version: 1,
      status: 'DEPLOYED_ACTIVE',
      resource: JSON.stringify({
        title: { values: { en: 'Your details', de: 'Ihre Angaben' } },
        version: 1,
        components: [{ type: 'text', id: 'firstName', label: { values: { en: 'First name', de: 'Vorname' } }, validate: { required: true, maxLength: 100 } }],
      }),
    },
  },
  addTheme: {
    request: {
      name: 'bank-brand',
      description: "The bank's colours, font and logo.",
      status: 'EDITABLE',
      palette: {
        general: { backgroundColor: '#ffffff', primaryColor: '#0b5394' },
        buttons: { primaryBackgroundColor: '#0b5394', primaryTextColor: '#ffffff' },
        header: { backgroundColor: '#0b1f4d', textColor: '#ffffff' },
        progressBar: { fillColor: '#0b5394', trackColor: '#d9e2ef' },
      },
    },
  },
  addThemeAsset: {
    request: { name: 'logo', contentType: 'image/png', fileExtension: 'png', assetResource: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/eL9GtQAAAABJRU5ErkJggg==' },
  },
  createApiKey: {
    request: { name: 'backend', description: 'The onboarding backend: starts journeys and reads their results.', permissions: [`TNT#${TENANT}#ArthrServer:getFromTenant`] },
  },
  createWebhook: {
    request: { url: 'https://hooks.bank.example/identity', description: 'Onboarding results', eventTypes: ['process-instance.completed', 'process-instance.reviewed'] },
  },
};
