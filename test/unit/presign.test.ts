import { describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../functions/config.js';
import { useConfigEnv } from '../support/config-env.js';
import { imageStore } from '../../functions/adapters/images.js';
import { exportObjects } from '../../functions/store/exports.js';
import { objectKeys } from '../../functions/store/keys.js';
import { presignPut } from '../../functions/adapters/presign.js';

// The AWS target: no S3_ENDPOINT / S3_PUBLIC_ENDPOINT, so the URLs are signed for the real S3
// with these fake credentials (signing makes no request).
const ENV = {
  TABLE_NAME: 'unit',
  IMAGES_BUCKET: 'images-bucket',
  EXPORTS_BUCKET: 'exports-bucket',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
};
useConfigEnv({ ...ENV, S3_ENDPOINT: undefined, S3_PUBLIC_ENDPOINT: undefined });

/** Query parameters S3 would check against the request: a checksum signed at presign time is one of an empty body. */
const checksumParams = (url: URL) => [...url.searchParams.keys()].filter((k) => /^x-amz-(checksum-|sdk-checksum-)/i.test(k));

describe('pre-signed S3 URLs (AWS)', () => {
  it('signs a face upload without a checksum of a body it has not seen, and only the headers the upload sends', async () => {
    const key = `${objectKeys.instancePrefix('demo', 'i1')}faces/selfie.jpg`;
    const { url, headers } = await imageStore.uploadUrl('demo', 'i1', key, 'image/jpeg', 300);
    const u = new URL(url);
    // Signed at presign time, `x-amz-checksum-crc32=AAAAAA==` is the CRC32 of an empty body:
    // S3 compares it with the real upload's and refuses it (BadDigest).
    expect(checksumParams(u)).toEqual([]);
    const signed = u.searchParams.get('X-Amz-SignedHeaders')!.split(';');
    // Every signed header but host is one the upload is told to send, and every header it is told to send is signed.
    expect(signed.filter((h) => h !== 'host').sort()).toEqual(Object.keys(headers).map((h) => h.toLowerCase()).sort());
    expect(headers).toEqual({ 'Content-Type': 'image/jpeg' });
    expect(u.searchParams.get('X-Amz-Content-Sha256')).toBe('UNSIGNED-PAYLOAD');
  });

  it('signs image and export downloads with no checksum parameters either', async () => {
    const key = `${objectKeys.instancePrefix('demo', 'i1')}faces/selfie.jpg`;
    for (const url of [
      new URL(await imageStore.url('demo', 'i1', key, 300)),
      new URL(await exportObjects.url(objectKeys.exportObject('demo', '6f1c7a52-8b8e-4c49-9d5e-3f8a1e0b2c11', 'export.zip'), 'export.zip', 300)),
    ]) {
      expect(checksumParams(url)).toEqual([]);
      expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    }
  });
});

describe('pre-signed S3 URLs (local gateway)', () => {
  it('signs the upload for the local S3 gateway without checksums too', async () => {
    process.env.S3_PUBLIC_ENDPOINT = 'http://127.0.0.1:4999';
    process.env.S3_LOCAL_SECRET = 'unit-secret-of-this-start-0123456789';
    resetConfigForTests();
    try {
      const { S3Client } = await import('@aws-sdk/client-s3');
      const { url } = await presignPut(new S3Client({}), 'images-bucket', 'tenants/demo/up.jpg', { expiresIn: 300, contentType: 'image/jpeg' });
      const u = new URL(url);
      expect(u.origin).toBe('http://127.0.0.1:4999');
      expect(checksumParams(u)).toEqual([]);
      expect(u.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    } finally {
      delete process.env.S3_PUBLIC_ENDPOINT;
      delete process.env.S3_LOCAL_SECRET;
      resetConfigForTests();
    }
  });
});
