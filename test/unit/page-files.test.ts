import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../functions/config.js';
import { PAGE_FILE_CACHE_CONTROL, pageFileStore } from '../../functions/adapters/page-files.js';
import { isTransientError } from '../../functions/shared/aws-errors.js';
import { zipOf } from '../support/zip.js';

/** The pages bucket's S3 calls on AWS (no S3_ENDPOINT, no tenant role: the process's own client). */
const ENV = {
  TABLE_NAME: 'unit',
  PAGES_BUCKET: 'pages-bucket',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
};
const CLEARED = ['S3_ENDPOINT', 'TENANT_ROLE_ARN', 'S3_LOCAL_SECRET', 'S3_PUBLIC_ENDPOINT'];
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const k of [...Object.keys(ENV), ...CLEARED]) saved[k] = process.env[k];
  for (const k of CLEARED) delete process.env[k];
  Object.assign(process.env, ENV);
  resetConfigForTests();
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetConfigForTests();
});

const s3 = mockClient(S3Client);
afterEach(() => s3.reset());

const PAGE_ID = '0b7c6f55-6d2e-4c4b-9a77-5a1d3c0e9f10';
const SECRET = '6f1d0c2ab4e94f0a8d3b2c1e0f9a8b7c';
const body = (bytes: Buffer) => ({ transformToByteArray: async () => new Uint8Array(bytes) }) as never;

describe('pageFileStore.putFiles', () => {
  it("writes each file once under the version's secret folder, with its type and immutable caching", async () => {
    s3.on(PutObjectCommand).resolves({});
    const files = Array.from({ length: 20 }, (_, i) => ({ path: i === 0 ? '/index.html' : `/assets/f${i}.js`, bytes: Buffer.from(`f${i}`), contentType: i === 0 ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8' }));
    await pageFileStore.putFiles('demo', PAGE_ID, SECRET, files);
    const puts = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(20);
    expect(new Set(puts.map((p) => p.Key)).size).toBe(20);
    expect(puts.find((p) => p.Key!.endsWith('/index.html'))).toMatchObject({
      Bucket: 'pages-bucket',
      Key: `tenants/demo/custom-pages/${PAGE_ID}/${SECRET}/index.html`,
      ContentType: 'text/html; charset=utf-8',
      CacheControl: 'public, max-age=31536000, immutable',
    });
    for (const p of puts) {
      expect(p.Key!.startsWith(`tenants/demo/custom-pages/${PAGE_ID}/${SECRET}/`)).toBe(true);
      expect(p.CacheControl).toBe(PAGE_FILE_CACHE_CONTROL);
    }
  });

  it('refuses a serving secret that is not 128 bits of hex, before any call', async () => {
    await expect(pageFileStore.putFiles('demo', PAGE_ID, '../../x', [{ path: '/index.html', bytes: Buffer.from(''), contentType: 'text/html' }])).rejects.toThrow();
    expect(s3.calls()).toHaveLength(0);
  });
});

describe('pageFileStore.deleteFiles and deleteFolder', () => {
  it("lists the page's prefix page by page and deletes each object", async () => {
    s3.on(ListObjectsV2Command)
      .resolvesOnce({ Contents: [{ Key: `tenants/demo/custom-pages/${PAGE_ID}/a/index.html` }], IsTruncated: true, NextContinuationToken: 't2' })
      .resolvesOnce({ Contents: [{ Key: `tenants/demo/custom-pages/${PAGE_ID}/b/index.html` }, { Key: `tenants/demo/custom-pages/${PAGE_ID}/b/x.js` }], IsTruncated: false });
    s3.on(DeleteObjectCommand).resolves({});
    expect(await pageFileStore.deleteFiles('demo', PAGE_ID)).toBe(3);
    const lists = s3.commandCalls(ListObjectsV2Command).map((c) => c.args[0].input);
    expect(lists).toEqual([
      { Bucket: 'pages-bucket', Prefix: `tenants/demo/custom-pages/${PAGE_ID}/`, ContinuationToken: undefined },
      { Bucket: 'pages-bucket', Prefix: `tenants/demo/custom-pages/${PAGE_ID}/`, ContinuationToken: 't2' },
    ]);
    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key)).toEqual([
      `tenants/demo/custom-pages/${PAGE_ID}/a/index.html`,
      `tenants/demo/custom-pages/${PAGE_ID}/b/index.html`,
      `tenants/demo/custom-pages/${PAGE_ID}/b/x.js`,
    ]);
  });

  it("deletes one version's folder only", async () => {
    s3.on(ListObjectsV2Command).resolves({ Contents: [], IsTruncated: false });
    expect(await pageFileStore.deleteFolder('demo', PAGE_ID, SECRET)).toBe(0);
    expect(s3.commandCalls(ListObjectsV2Command)[0]!.args[0].input.Prefix).toBe(`tenants/demo/custom-pages/${PAGE_ID}/${SECRET}/`);
  });
});

describe('pageFileStore.uploadUrl', () => {
  it("pre-signs a PUT of the tenant's upload key, signing its Content-Type, with no call to AWS", async () => {
    const { url, headers } = await pageFileStore.uploadUrl('demo', 'u-1', 900);
    const parsed = new URL(url);
    expect(parsed.hostname).toBe('pages-bucket.s3.eu-west-1.amazonaws.com');
    expect(parsed.pathname).toBe('/tenants/demo/custom-page-uploads/u-1.bin');
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(parsed.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(headers).toEqual({ 'Content-Type': 'application/octet-stream' });
    expect(s3.calls()).toHaveLength(0);
  });
});

describe('pageFileStore.takeUploadedArchive', () => {
  const key = 'tenants/demo/custom-page-uploads/u-1.bin';

  it('reads the archive with a range one byte past the cap, and deletes it', async () => {
    s3.on(GetObjectCommand).resolves({ Body: body(Buffer.from('PK\u0003\u0004zip')), ContentRange: 'bytes 0-6/7' });
    s3.on(DeleteObjectCommand).resolves({});
    expect((await pageFileStore.takeUploadedArchive('demo', 'u-1', 100)) as Buffer).toEqual(Buffer.from('PK\u0003\u0004zip'));
    expect(s3.commandCalls(GetObjectCommand)[0]!.args[0].input).toEqual({ Bucket: 'pages-bucket', Key: key, Range: 'bytes=0-100' });
    expect(s3.commandCalls(DeleteObjectCommand)[0]!.args[0].input).toEqual({ Bucket: 'pages-bucket', Key: key });
  });

  it('says tooLarge when the object is over the cap, reading no more than the cap and a byte', async () => {
    s3.on(GetObjectCommand).resolves({ Body: body(Buffer.alloc(11)), ContentRange: 'bytes 0-10/50000000' });
    s3.on(DeleteObjectCommand).resolves({});
    expect(await pageFileStore.takeUploadedArchive('demo', 'u-1', 10)).toBe('tooLarge');
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(1);
  });

  it('says undefined when nothing was PUT, or an empty object was (InvalidRange)', async () => {
    for (const name of ['NoSuchKey', 'InvalidRange']) {
      s3.reset();
      s3.on(GetObjectCommand).rejects(Object.assign(new Error(name), { name }));
      s3.on(DeleteObjectCommand).resolves({});
      expect(await pageFileStore.takeUploadedArchive('demo', 'u-1', 10)).toBeUndefined();
    }
  });

  it('passes any other failure on (a 500, not a refusal)', async () => {
    s3.on(GetObjectCommand).rejects(Object.assign(new Error('slow down'), { name: 'SlowDown' }));
    s3.on(DeleteObjectCommand).resolves({});
    await expect(pageFileStore.takeUploadedArchive('demo', 'u-1', 10)).rejects.toThrow('slow down');
  });
});

describe('a throttled write of a version\'s files (S3 SlowDown)', () => {
  it('fails the write with the throttle, which the route answers 503 (sent again, it is judged anew)', async () => {
    s3.on(PutObjectCommand).resolves({}).on(PutObjectCommand, { Key: `tenants/demo/custom-pages/${PAGE_ID}/${SECRET}/app.js` }).rejects(Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }));
    const files = [
      { path: '/index.html', bytes: Buffer.from('<p>'), contentType: 'text/html; charset=utf-8' },
      { path: '/app.js', bytes: Buffer.from('1'), contentType: 'text/javascript; charset=utf-8' },
    ];
    const failed = await pageFileStore.putFiles('demo', PAGE_ID, SECRET, files).catch((e: unknown) => e);
    expect(failed).toMatchObject({ name: 'SlowDown' });
    expect(isTransientError(failed)).toBe(true);
  });

  it('leaves no version behind: addCustomPage removes the record and what files went, then passes the throttle on', async () => {
    const { addCustomPage } = await import('../../functions/theme-server/custom-pages.js');
    const throttle = Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
    const removed: unknown[] = [];
    const deleted: unknown[] = [];
    const pages = {
      latestVersion: async () => undefined,
      create: async () => 'created',
      remove: async (r: unknown) => void removed.push(r),
    };
    const files = {
      putFiles: async () => Promise.reject(throttle),
      deleteNamed: async (...args: unknown[]) => void deleted.push(args),
    };
    const archive = (await zipOf({ 'index.html': '<p>hi</p>' })).toString('base64');
    const outcome = await addCustomPage({ pages, files } as never, { name: 'p', archive }, { tenantId: 'demo', actor: 'k', now: new Date() }).catch((e: unknown) => e);
    expect(outcome).toBe(throttle);
    expect(removed).toHaveLength(1);
    expect(deleted).toEqual([['demo', (removed[0] as { id: string }).id, (removed[0] as { servingSecret: string }).servingSecret, ['/index.html']]]);
  });
});
