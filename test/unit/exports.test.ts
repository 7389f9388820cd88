import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../functions/config.js';
import { useConfigEnv } from '../support/config-env.js';
import { ProcessInstanceNotFoundError } from '../../functions/process-manager/instances/instances.js';
import { exportView, findExport, runExport, startExport } from '../../functions/exports/exports.js';
import type { ExportRecord, ExportStore } from '../../functions/exports/model.js';
import { handler as workerHandler } from '../../functions/exports/run-export.js';
import { exportObjects } from '../../functions/store/exports.js';
import { sqsExportQueue } from '../../functions/adapters/export-queue.js';
import { imageStore } from '../../functions/adapters/images.js';
import { FileSealer, KmsSealer, cloudSecretContext } from '../../functions/adapters/sealer.js';
import { isTransientError } from '../../functions/shared/aws-errors.js';
import { GETDATA_DOCUMENT_BUDGET, inlineImages, type UserData } from '../../functions/userdata/user-data.js';
import { checkPresigned, newLocalS3Credentials } from '../../lib/local/s3.js';

const ENV = {
  TABLE_NAME: 'unit',
  IMAGES_BUCKET: 'images-bucket',
  EXPORTS_BUCKET: 'exports-bucket',
  EXPORTS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/arthr-fir-exports',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
};
useConfigEnv(ENV);

const ref = { tenantId: 'demo', exportId: '6f1c7a52-8b8e-4c49-9d5e-3f8a1e0b2c11' };

describe('KmsSealer', () => {
  const kms = mockClient(KMSClient);
  afterEach(() => kms.reset());

  it('encrypts with the exports key, bound to the tenant and export by the encryption context', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('sealed-bytes') });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('Correct-Horse-9') });
    const sealer = new KmsSealer('arn:aws:kms:eu-west-1:111122223333:key/k');
    const sealed = await sealer.seal('Correct-Horse-9', ref);
    expect(sealed).toBe(Buffer.from('sealed-bytes').toString('base64'));
    const context = { purpose: 'export-password', tenantId: 'demo', exportId: ref.exportId };
    expect(kms.commandCalls(EncryptCommand)[0]!.args[0].input).toMatchObject({ KeyId: 'arn:aws:kms:eu-west-1:111122223333:key/k', EncryptionContext: context });
    expect(await sealer.unseal(sealed, ref)).toBe('Correct-Horse-9');
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input).toMatchObject({ EncryptionContext: context, CiphertextBlob: Buffer.from('sealed-bytes') });
  });

  it('seals cloud secrets bound to tenant, name and version, and passes a KMS throttle on as it is', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('sealed') });
    const sealer = new KmsSealer('k', cloudSecretContext);
    await sealer.seal('sk_live_123456', { tenantId: 'demo', name: 'otp', version: 3 });
    expect(kms.commandCalls(EncryptCommand)[0]!.args[0].input.EncryptionContext).toEqual({ purpose: 'cloud-secret', tenantId: 'demo', name: 'otp', version: '3' });
    kms.reset();
    kms.on(DecryptCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const err = await sealer.unseal('AAAA', { tenantId: 'demo', name: 'otp', version: 3 }).catch((e: unknown) => e);
    // What the activity retries (Activity.Transient) and a route answers 503.
    expect(err).toMatchObject({ name: 'ThrottlingException' });
    expect(isTransientError(err)).toBe(true);
  });

  it('fails when KMS refuses (another export\'s context)', async () => {
    kms.on(DecryptCommand).rejects(Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' }));
    await expect(new KmsSealer('k').unseal('AAAA', ref)).rejects.toThrow('InvalidCiphertextException');
  });
});

describe('FileSealer', () => {
  it('round-trips, never holds the clear text, and refuses another export\'s context', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sealer-')), 'key');
    writeFileSync(path, randomBytes(32));
    const sealer = new FileSealer(path);
    const sealed = await sealer.seal('Correct-Horse-9', ref);
    expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toContain('Correct-Horse');
    expect(await sealer.unseal(sealed, ref)).toBe('Correct-Horse-9');
    await expect(sealer.unseal(sealed, { ...ref, exportId: 'another' })).rejects.toThrow();
    await expect(sealer.unseal(sealed, { ...ref, tenantId: 'other' })).rejects.toThrow();
  });
});

describe('sqsExportQueue', () => {
  const sqs = mockClient(SQSClient);
  afterEach(() => sqs.reset());
  it('sends one message naming only the tenant and the export to the configured queue', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    await sqsExportQueue.enqueue(ref);
    const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    expect(input.QueueUrl).toBe(ENV.EXPORTS_QUEUE_URL);
    expect(JSON.parse(input.MessageBody!)).toEqual(ref);
  });
});

/** One mock of S3 for the file: a second mockClient of the same class would take the first one's place. */
const s3Mock = mockClient(S3Client);

describe('exportObjects', () => {
  const s3 = s3Mock;
  afterEach(() => s3.reset());
  it('puts a file under its tenant and export in the exports bucket', async () => {
    s3.on(PutObjectCommand).resolves({});
    const key = await exportObjects.put(ref, 'process-instances.csv', 'id\r\n', 'text/csv; charset=utf-8');
    expect(key).toBe(`tenants/demo/exports/${ref.exportId}/process-instances.csv`);
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toMatchObject({ Bucket: 'exports-bucket', Key: key, ContentType: 'text/csv; charset=utf-8' });
  });

  it('pre-signs a GET of the file for 5 minutes, as an attachment, with no call to AWS', async () => {
    const url = new URL(await exportObjects.url(`tenants/demo/exports/${ref.exportId}/a.zip`, 'a.zip', 300));
    expect(url.hostname).toBe('exports-bucket.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe(`/tenants/demo/exports/${ref.exportId}/a.zip`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIAEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="a.zip"');
    expect(s3.calls()).toHaveLength(0);
  });
});

describe('imageStore.url', () => {
  it("pre-signs an instance's image and refuses a key outside the instance", async () => {
    const key = 'tenants/demo/instances/i1/faces/f/c.jpg';
    const url = new URL(await imageStore.url('demo', 'i1', key, 300));
    expect(url.hostname).toBe('images-bucket.s3.eu-west-1.amazonaws.com');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    await expect(imageStore.url('demo', 'i2', key, 300)).rejects.toThrow('outside its instance');
    await expect(imageStore.url('other', 'i1', key, 300)).rejects.toThrow('outside its instance');
  });
});

describe('imageStore.getAtMost (an upload a pre-signed PUT could not cap)', () => {
  const s3 = s3Mock;
  afterEach(() => s3.reset());
  const key = 'tenants/demo/instances/i1/uploads/cmVm/c.jpg';
  // What the SDK's body offers that the store uses.
  const body = (bytes: Buffer) => ({ transformToByteArray: async () => new Uint8Array(bytes), transformToWebStream: () => new Blob([bytes]).stream() }) as never;
  const named = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

  it('asks S3 for one byte more than the limit, and takes what comes back within it', async () => {
    s3.on(GetObjectCommand).resolves({ Body: body(Buffer.alloc(10, 1)), ContentRange: 'bytes 0-9/10' });
    expect(await imageStore.getAtMost('demo', 'i1', key, 10)).toEqual(Buffer.alloc(10, 1));
    expect(s3.commandCalls(GetObjectCommand)[0]!.args[0].input).toMatchObject({ Bucket: 'images-bucket', Key: key, Range: 'bytes=0-10' });
  });

  it("answers 'tooLarge' from the object's size in Content-Range, as S3 reports a 5 GB upload", async () => {
    s3.on(GetObjectCommand).resolves({ Body: body(Buffer.alloc(11)), ContentRange: 'bytes 0-10/5368709120' });
    expect(await imageStore.getAtMost('demo', 'i1', key, 10)).toBe('tooLarge');
  });

  it('reads an empty upload (S3 answers its range 416 InvalidRange) as empty, an absent one as undefined', async () => {
    s3.on(GetObjectCommand).rejectsOnce(named('InvalidRange', 416)).rejectsOnce(named('NoSuchKey', 404));
    expect(await imageStore.getAtMost('demo', 'i1', key, 10)).toEqual(Buffer.alloc(0));
    expect(await imageStore.getAtMost('demo', 'i1', key, 10)).toBeUndefined();
  });

  it("passes S3's throttle on as a transient error (the step retries it), and refuses a key outside the instance", async () => {
    s3.on(GetObjectCommand).rejects(named('SlowDown', 503));
    const err = await imageStore.getAtMost('demo', 'i1', key, 10).catch((e: unknown) => e);
    expect(isTransientError(err)).toBe(true);
    await expect(imageStore.getAtMost('demo', 'i2', key, 10)).rejects.toThrow('outside its instance');
  });
});

describe('checkPresigned (the local S3 gateway)', () => {
  const credentials = newLocalS3Credentials();
  const presign = async (signingDate?: Date) => {
    const { S3Client: Client, GetObjectCommand } = await import('@aws-sdk/client-s3');
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    const client = new Client({ endpoint: 'http://127.0.0.1:4999', forcePathStyle: true, region: 'eu-west-1', credentials });
    return new URL(await getSignedUrl(client, new GetObjectCommand({ Bucket: 'arthr-exports', Key: 'tenants/demo/x y.zip' }), { expiresIn: 300, ...(signingDate ? { signingDate } : {}) }));
  };
  it('checks the headers a pre-signed PUT signed: the same Content-Type passes, another or none does not', async () => {
    const { S3Client: Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    const client = new Client({ endpoint: 'http://127.0.0.1:4999', forcePathStyle: true, region: 'eu-west-1', credentials });
    const url = new URL(await getSignedUrl(client, new PutObjectCommand({ Bucket: 'arthr-images', Key: 'tenants/demo/up.jpg', ContentType: 'image/jpeg' }), { expiresIn: 300, signableHeaders: new Set(['content-type']) }));
    expect(await checkPresigned(credentials, url, 'PUT', new Date(), { 'content-type': 'image/jpeg' })).toEqual({ ok: true, bucket: 'arthr-images', key: 'tenants/demo/up.jpg' });
    expect(await checkPresigned(credentials, url, 'PUT', new Date(), { 'content-type': 'text/html' })).toMatchObject({ ok: false });
    expect(await checkPresigned(credentials, url, 'PUT', new Date(), {})).toEqual({ ok: false, reason: 'The request does not send the signed header content-type.' });
    expect(await checkPresigned(credentials, url, 'GET', new Date(), { 'content-type': 'image/jpeg' })).toMatchObject({ ok: false });
  });

  it("accepts a URL the SDK signed with this start's credentials, until it expires", async () => {
    const url = await presign();
    expect(await checkPresigned(credentials, url, 'GET', new Date())).toEqual({ ok: true, bucket: 'arthr-exports', key: 'tenants/demo/x y.zip' });
    expect(await checkPresigned(credentials, url, 'GET', new Date(Date.now() + 301_000))).toEqual({ ok: false, reason: 'Request has expired.' });
  });
  it('refuses a changed signature, key, expiry or method, and other credentials', async () => {
    const url = await presign();
    const change = (f: (u: URL) => void) => {
      const u = new URL(url);
      f(u);
      return u;
    };
    const sig = url.searchParams.get('X-Amz-Signature')!;
    for (const forged of [
      change((u) => u.searchParams.set('X-Amz-Signature', sig.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')))),
      change((u) => (u.pathname = u.pathname.replace('x%20y', 'other'))),
      change((u) => u.searchParams.set('X-Amz-Expires', '3600')),
      change((u) => u.searchParams.set('X-Amz-Credential', url.searchParams.get('X-Amz-Credential')!.replace('local/', 'AKIAOTHER/'))),
      change((u) => u.searchParams.delete('X-Amz-Signature')),
    ]) {
      expect((await checkPresigned(credentials, forged, 'GET', new Date())).ok).toBe(false);
    }
    expect((await checkPresigned(credentials, url, 'PUT', new Date())).ok).toBe(false);
    const old = await presign(new Date(Date.now() - 600_000));
    expect(await checkPresigned(credentials, old, 'GET', new Date())).toEqual({ ok: false, reason: 'Request has expired.' });
  });
});

/** An in-memory job store, as the table keeps jobs (one per tenant and id). */
function memoryJobs(): ExportStore & { items: Map<string, ExportRecord> } {
  const items = new Map<string, ExportRecord>();
  const k = (t: string, id: string) => `${t}/${id}`;
  return {
    items,
    async create(r) {
      if (items.has(k(r.tenantId, r.exportId))) throw new Error('exists');
      items.set(k(r.tenantId, r.exportId), structuredClone(r));
    },
    async get(t, id, now) {
      const r = items.get(k(t, id));
      return r && r.expiresAt * 1000 > now.getTime() ? structuredClone(r) : undefined;
    },
    async markRunning(t, id, now) {
      const r = items.get(k(t, id));
      if (!r || (r.status !== 'PENDING' && r.status !== 'RUNNING')) return false;
      Object.assign(r, { status: 'RUNNING', updatedAt: now.toISOString() });
      return true;
    },
    async finish(t, id, outcome, now) {
      const r = items.get(k(t, id))!;
      for (const [f, v] of Object.entries(outcome)) if (v !== undefined) (r as unknown as Record<string, unknown>)[f] = v;
      r.completedAt = now.toISOString();
      delete r.sealedPassword;
    },
  };
}

describe('export jobs', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const seal = { seal: async (p: string) => `sealed(${p.length})`, unseal: async () => 'Correct-Horse-9' };
  const start = async (jobs = memoryJobs()) => {
    const queued: unknown[] = [];
    const record = await startExport(
      { jobs, queue: { enqueue: async (r) => void queued.push(r) }, sealer: seal },
      { tenantId: 'demo', actor: 'apikey:k', kind: 'USER_DATA_ARCHIVE', fileName: 'u.zip', contentType: 'application/zip', processDefnId: 'd', processInstanceId: 'i', password: 'Correct-Horse-9' },
      now,
    );
    return { jobs, record, queued };
  };

  it('stores a PENDING job with a 7-day TTL and the password sealed, and queues its id only', async () => {
    const { jobs, record, queued } = await start();
    // The stored attribute is still `principal` (jobs already in the table have it).
    expect(record).toMatchObject({ status: 'PENDING', principal: 'apikey:k', expiresAt: now.getTime() / 1000 + 7 * 86_400, sealedPassword: 'sealed(15)' });
    expect(JSON.stringify([...jobs.items.values()])).not.toContain('Correct-Horse');
    expect(queued).toEqual([{ tenantId: 'demo', exportId: record.exportId }]);
    expect(await exportView({}, record, now)).toEqual(expect.not.objectContaining({ url: expect.anything() }));
  });

  it('runs a job to SUCCEEDED, dropping the sealed password; a second delivery does nothing', async () => {
    const { jobs, record } = await start();
    const put: unknown[] = [];
    const d = {
      jobs,
      sealer: seal,
      objects: { put: async (...a: unknown[]) => (put.push(a), 'tenants/demo/exports/x/u.zip') },
      build: async (_r: ExportRecord, password: string | undefined) => ({ body: Buffer.from(`zip with ${password}`) }),
    };
    expect(await runExport(d, record, { now: () => now, lastAttempt: false })).toBe('SUCCEEDED');
    const done = (await jobs.get('demo', record.exportId, now))!;
    expect(done).toMatchObject({ status: 'SUCCEEDED', objectKey: 'tenants/demo/exports/x/u.zip', bytes: 'zip with Correct-Horse-9'.length });
    expect(done.sealedPassword).toBeUndefined();
    expect(await runExport(d, record, { now: () => now, lastAttempt: false })).toBe('SUCCEEDED');
    expect(put).toHaveLength(1);
    const view = await exportView({ objects: { url: async (key, file, s) => `https://s3/${key}?f=${file}&s=${s}` } }, done, now);
    expect(view).toMatchObject({ status: 'SUCCEEDED', url: 'https://s3/tenants/demo/exports/x/u.zip?f=u.zip&s=300', urlExpiresAt: '2026-11-23T12:05:00.000Z' });
  });

  it('ends FAILED with the reason when the instance is gone; retries other errors until the last attempt', async () => {
    const gone = await start();
    const failing = (err: Error) => ({ jobs: gone.jobs, sealer: seal, objects: { put: async () => 'k' }, build: async () => Promise.reject(err) });
    expect(await runExport(failing(new ProcessInstanceNotFoundError('i')), gone.record, { now: () => now, lastAttempt: false })).toBe('FAILED');
    expect((await gone.jobs.get('demo', gone.record.exportId, now))!).toMatchObject({ status: 'FAILED', error: 'Process instance i was not found.' });

    const flaky = await start();
    const d = { ...failing(new Error('S3 timeout')), jobs: flaky.jobs };
    await expect(runExport(d, flaky.record, { now: () => now, lastAttempt: false })).rejects.toThrow('S3 timeout');
    expect((await flaky.jobs.get('demo', flaky.record.exportId, now))!.status).toBe('RUNNING');
    await expect(runExport(d, flaky.record, { now: () => now, lastAttempt: true })).rejects.toThrow('S3 timeout');
    const failed = (await flaky.jobs.get('demo', flaky.record.exportId, now))!;
    expect(failed).toMatchObject({ status: 'FAILED', error: 'The export could not be made.' });
    expect(failed.sealedPassword).toBeUndefined();
  });

  it("finds a job only in its own tenant, kind and instance, and not past its TTL", async () => {
    const { jobs, record } = await start();
    const find = (t: string, e: Parameters<typeof findExport>[3], at = now) => findExport({ jobs }, t, record.exportId, e, at);
    await expect(find('demo', { kind: 'USER_DATA_ARCHIVE', processInstanceId: 'i', processDefnId: 'd' })).resolves.toMatchObject({ exportId: record.exportId });
    for (const [t, e] of [
      ['other', { kind: 'USER_DATA_ARCHIVE' }],
      ['demo', { kind: 'INSTANCES_CSV' }],
      ['demo', { kind: 'USER_DATA_ARCHIVE', processInstanceId: 'j' }],
      ['demo', { kind: 'USER_DATA_ARCHIVE', processDefnId: 'e' }],
    ] as const) {
      await expect(find(t, e)).rejects.toMatchObject({ code: 'EXPORT_NOT_FOUND', statusCode: 404 });
    }
    await expect(find('demo', { kind: 'USER_DATA_ARCHIVE' }, new Date(now.getTime() + 7 * 86_400_000))).rejects.toMatchObject({ code: 'EXPORT_NOT_FOUND' });
  });
});

describe('the export worker handler', () => {
  it('reports a message it could not run back to SQS (for a redelivery), by its id', async () => {
    // No table is reachable in a unit test: the job read fails, as a DynamoDB outage would.
    process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';
    resetConfigForTests();
    try {
      const out = await workerHandler({ Records: [{ messageId: 'm-1', body: JSON.stringify(ref), attributes: { ApproximateReceiveCount: '1' } }] });
      expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    } finally {
      delete process.env.DYNAMODB_ENDPOINT;
      resetConfigForTests();
    }
  });
});

describe('inlineImages', () => {
  const image = (bytes: number, i: number) => ({
    imageKey: `f${i}`,
    captureId: `00000000-0000-4000-8000-00000000000${i}`,
    kind: 'FACE' as const,
    format: 'JPEG' as const,
    contentType: 'image/jpeg',
    width: 640,
    height: 480,
    bytes,
    sha256: 'a'.repeat(64),
    capturedAt: '2026-11-23T12:00:00.000Z',
    objectKey: `tenants/demo/instances/i/faces/f${i}/x.jpg`,
  });
  const data = (sizes: number[]) =>
    ({ processInstanceId: 'i', processDefnId: 'd', processDefnName: 'n', processDefnVersion: 1, status: 'COMPLETED_ENDED_SUCCESS', forms: {}, steps: [], checks: [], images: sizes.map(image) }) as unknown as UserData;
  /** The document's exact size with every image inline. */
  const inlineSize = (d: UserData) =>
    Buffer.byteLength(JSON.stringify({ ...d, images: d.images.map(({ objectKey: _k, ...m }) => ({ ...m, data: 'A'.repeat(4 * Math.ceil(m.bytes / 3)) })) }));

  it('puts an image inline when the document is exactly at the budget, and by URL one byte under', () => {
    const d = data([3000]);
    const exact = inlineSize(d);
    expect(inlineImages(d, exact)).toEqual([true]);
    expect(inlineImages(d, exact - 1)).toEqual([false]);
  });

  it('keeps the small case all inline, and sends the images past the budget by URL in order', () => {
    expect(inlineImages(data([100_000, 100_000, 100_000]), GETDATA_DOCUMENT_BUDGET)).toEqual([true, true, true]);
    const big = 3 * 1024 * 1024 - 4096;
    expect(inlineImages(data([big, big, big]), GETDATA_DOCUMENT_BUDGET)).toEqual([true, false, false]);
    expect(inlineImages(data([big, 1000, big]), 5_500_000)).toEqual([true, true, false]);
  });
});
