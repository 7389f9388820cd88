import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import jpeg from 'jpeg-js';
import { describe, expect, it, vi } from 'vitest';
import { activityDeps } from '../../../functions/activities/deps.js';
import { begin, newestFaceCapture, previewKind, submission } from '../../../functions/activities/generic-user-task.js';
import type { ActivityDeps, Session, StepView } from '../../../functions/activities/contract.js';
import type { spec } from '../../../functions/activities/specs/generic-user-task.js';
import { SCREENS } from '../../../functions/activities/index.generated.js';
import { identityStores } from '../../../functions/identity-store/deps.js';
import { journeyPage, journeyScreens } from '../../../functions/journey/pages.js';
import { mergeSession } from '../../../functions/journey/steps.js';
import { screenOf } from '../../../functions/journey/screen-context.js';
import type { ProcessInstanceRecord } from '../../../functions/process-manager/model.js';
import { applyOutputs } from '../../../statemachines/outputs.js';

const FACE = readFileSync(resolve(import.meta.dirname, '../../fixtures/face-640x480.jpg'));
const PNG = readFileSync(resolve(import.meta.dirname, '../../fixtures/face-320x240.png'));
const capture = (captureId: string, capturedAt: string, format = 'JPEG') => ({ captureId, format, capturedAt, width: 640, height: 480 });
const session = (faces: Record<string, unknown> = {}): Session => ({ instance: { tenantId: 'demo', processInstanceId: 'p1' }, parameters: {}, vars: {}, _faces: faces }) as Session;

function starting(inputs: Record<string, unknown>, s: Session, bytes: Buffer | 'gone' = FACE) {
  const getAtMost = vi.fn(async () => (bytes === 'gone' ? undefined : bytes));
  const deps = { ...activityDeps, images: { ...activityDeps.images, getAtMost } } as ActivityDeps;
  const started = begin({ activityId: 'confirm', inputs: inputs as never, session: s, tenantId: 'demo', actor: 'journey:p1', now: new Date(), deps });
  return { started, getAtMost };
}

describe('the preview kind', () => {
  it("reads the family's stepId as the catalogue's screen input names it, or the screen framework's own name", () => {
    expect(previewKind({ 'Starting component ID': 'document-capture' })).toBe('document');
    expect(previewKind({ 'Starting Component ID': 'document-capture' })).toBe('document');
    expect(previewKind({ 'Starting component ID': 'face-capture' })).toBe('face');
    expect(previewKind({})).toBe('face');
  });
});

describe('Generic User Task (Confirm Image): what it previews', () => {
  it('takes the newest face capture of the journey, whatever its Face Key', () => {
    const faces = { face: { captures: [capture('a', '2030-01-01T00:00:01Z'), capture('b', '2030-01-01T00:00:03Z')] }, selfie: { captures: [capture('c', '2030-01-01T00:00:02Z', 'PNG')] } };
    expect(newestFaceCapture({ _faces: faces })).toEqual({ faceKey: 'face', captureId: 'b', format: 'JPEG', capturedAt: '2030-01-01T00:00:03Z' });
    expect(newestFaceCapture({ _faces: { face: { captures: [] } } })).toBeUndefined();
    expect(newestFaceCapture({})).toBeUndefined();
  });

  it('records the newest capture as a small upright JPEG, inline, when the step starts', async () => {
    const { started, getAtMost } = starting({}, session({ face: { captures: [capture('c1', '2030-01-01T00:00:01Z')] } }));
    const recorded = (await started)['Preview Image'] as { kind: string; captureId: string; image: { dataUrl: string; width: number; height: number } };
    expect(getAtMost).toHaveBeenCalledWith('demo', 'p1', expect.stringMatching(/\/faces\/[^/]+\/c1\.jpg$/), expect.any(Number));
    expect(recorded).toMatchObject({ kind: 'face', faceKey: 'face', captureId: 'c1', image: { width: 480, height: 360 } });
    expect(recorded.image.dataUrl.length).toBeLessThanOrEqual(64 * 1024);
    const thumb = jpeg.decode(Buffer.from(recorded.image.dataUrl.replace('data:image/jpeg;base64,', ''), 'base64'));
    expect([thumb.width, thumb.height]).toEqual([480, 360]);
  });

  it('reads a PNG capture too, and shows no image when it is gone or does not decode', async () => {
    const png = await starting({}, session({ face: { captures: [capture('p', '2030-01-01T00:00:01Z', 'PNG')] } }), PNG).started;
    expect(png['Preview Image']).toMatchObject({ image: { width: 320, height: 240 } });
    for (const bytes of ['gone', Buffer.from('not an image')] as const) {
      const none = await starting({}, session({ face: { captures: [capture('c1', '2030-01-01T00:00:01Z')] } }), bytes).started;
      expect(none['Preview Image']).toEqual({ kind: 'face', faceKey: 'face', captureId: 'c1', capturedAt: '2030-01-01T00:00:01Z' });
    }
  });

  it('previews a document for document-capture, and reads nothing for it yet', async () => {
    const { started, getAtMost } = starting({ 'Starting Component ID': 'document-capture', 'Document Key': 'passport' }, session({ face: { captures: [capture('c1', '2030-01-01T00:00:01Z')] } }));
    expect((await started)['Preview Image']).toEqual({ kind: 'document' });
    expect(getAtMost).not.toHaveBeenCalled();
    expect((await starting({}, session()).started)['Preview Image']).toEqual({ kind: 'face' });
  });
});

describe('Generic User Task (Confirm Image): its page and its submission', () => {
  const record = { id: 'p1', tenantId: 'demo', status: 'ACTIVE', parameters: {} } as unknown as ProcessInstanceRecord;
  const image = { dataUrl: 'data:image/jpeg;base64,AAAA', width: 480, height: 360 };
  const step = (inputs: Record<string, unknown>) => ({ activityId: 'confirm', activityType: 'GENERIC_USER_TASK', inputs, state: { vars: {} }, taskToken: 't', since: '' });
  const screens = journeyScreens(SCREENS, { identityStores });
  const view = (inputs: Record<string, unknown>) => ({ ...screenOf(record, step(inputs), 'cap', 'en', 'preview'), inputs, deps: {} }) as unknown as StepView<typeof spec>;

  it('shows the capture with "Use this photo" and "Take it again", also when the step names its capture as its component', async () => {
    for (const inputs of [{ 'Preview Image': { kind: 'face', image } }, { 'Starting Component ID': 'face-capture', 'UI Component ID': 'preview', 'List of Screens': ['preview'], 'Preview Image': { kind: 'face', image } }]) {
      const html = await journeyPage(screens, { ...record, currentStep: step(inputs) } as ProcessInstanceRecord, 'cap', 'en');
      expect(html).toContain('<h1>Check your photo</h1>');
      expect(html).toContain('<img src="data:image/jpeg;base64,AAAA" alt="The photo you took" width="480" height="360">');
      expect(html).toContain('action="/journey/p1/steps/confirm?c=cap&amp;lang=en"');
      expect(html).toContain('name="arthr:action" value="confirm">Use this photo</button>');
      expect(html).toContain('name="arthr:action" value="retake">Take it again</button>');
      expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/journey/assets/page.js" defer>']);
    }
  });

  it('says when there is no photo to show, in the page language, and shows no other screen of the family', async () => {
    const de = await journeyPage(screens, { ...record, currentStep: step({ 'Starting Component ID': 'document-capture', 'UI Component ID': 'preview', 'Preview Image': { kind: 'document' } }) } as ProcessInstanceRecord, 'cap', 'de');
    expect(de).toContain('Prüfen Sie das Foto Ihres Ausweises');
    expect(de).toContain('Hier gibt es kein Foto zu sehen.');
    expect(de).toContain('Neu aufnehmen');
    const other = await journeyPage(screens, { ...record, currentStep: step({ 'Starting Component ID': 'face-capture', 'UI Component ID': 'selfie-tips' }) } as ProcessInstanceRecord, 'cap', 'en');
    expect(other).toContain('This step cannot be completed here');
  });

  it('completes with photoConfirmed and _photoConfirmed: true to use the photo, false to take it again', async () => {
    const inputs = { 'Preview Image': { kind: 'face', captureId: 'c1', image } };
    expect(await submission.submit(view(inputs), { body: { 'arthr:action': 'confirm' } }, new Date())).toEqual({
      complete: { result: { vars: { photoConfirmed: true, _photoConfirmed: true } }, values: { photoConfirmed: true, captureId: 'c1' }, dataKey: 'confirm' },
    });
    expect(await submission.submit(view(inputs), { body: { 'arthr:action': 'retake' } }, new Date())).toMatchObject({ complete: { result: { vars: { photoConfirmed: false, _photoConfirmed: false } } } });
    const doc = await submission.submit(view({ 'Starting Component ID': 'document-capture', 'Document Key': 'passport', 'Preview Image': { kind: 'document' } }), { body: { 'arthr:action': 'confirm' } }, new Date());
    expect(doc).toEqual({ complete: { result: { vars: { documentConfirmed: true, _documentConfirmed: true } }, values: { documentConfirmed: true, documentKey: 'passport' }, dataKey: 'confirm' } });
    const neither = await submission.submit(view(inputs), { body: {} }, new Date());
    expect('page' in neither && neither.page).toContain('Check your photo');
  });

  it("gives the family's output parameter its value from the step's result", async () => {
    const outcome = await submission.submit(view({ 'Preview Image': { kind: 'face' } }), { body: { 'arthr:action': 'retake' } }, new Date());
    const result = 'complete' in outcome ? outcome.complete.result : {};
    // The family's `execution.hasVariableLocal("photoConfirmed") ? execution.getVariableLocal("photoConfirmed") : false`,
    // as the output evaluator reads it once the Local forms parse as the plain ones.
    const outputs = { _photoConfirmed: '${execution.hasVariable("photoConfirmed") ? execution.getVariable("photoConfirmed") : false}' };
    const before = { vars: { _photoConfirmed: true } };
    expect(applyOutputs(mergeSession(before, result), outputs).vars).toMatchObject({ photoConfirmed: false, _photoConfirmed: false });
    expect(applyOutputs(mergeSession(before, {}), { x: outputs._photoConfirmed }).vars).toMatchObject({ x: false });
  });
});
