import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { useConfigEnv } from '../../support/config-env.js';
import { themeAssetStore } from '../../../functions/adapters/theme-assets.js';
import { objectKeys } from '../../../functions/store/keys.js';
import type { ThemeAsset } from '../../../functions/theme-server/model.js';

const ENV = { TABLE_NAME: 'unit', IMAGES_BUCKET: 'images-bucket', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };
useConfigEnv(ENV);

const s3 = mockClient(S3Client);
afterEach(() => s3.reset());

const THEME = '3b241101-e2bb-4255-8caf-4136c566a962';
const asset: ThemeAsset = {
  name: 'logo',
  fileExtension: 'png',
  contentType: 'image/png',
  kind: 'image',
  secret: 'AbCdEfGhIjKlMnOpQrStUv',
  size: 5,
  sha256: 'a'.repeat(64),
  createdDtm: '2026-11-28T00:00:00.000Z',
};

describe('objectKeys.themeAsset', () => {
  it('puts an asset under its tenant and theme, named by its secret', () => {
    expect(objectKeys.themeAsset('demo', THEME, asset.secret, 'png')).toBe(`tenants/demo/themes/${THEME}/${asset.secret}.png`);
  });
  it('refuses parts that could leave the prefix', () => {
    expect(() => objectKeys.themeAsset('demo', '../x', asset.secret, 'png')).toThrow();
    expect(() => objectKeys.themeAsset('demo', THEME, 'a/b', 'png')).toThrow();
    expect(() => objectKeys.themeAsset('demo', THEME, asset.secret, 'p/ng')).toThrow();
    expect(() => objectKeys.themeAsset('Not A Tenant', THEME, asset.secret, 'png')).toThrow();
  });
});

describe('themeAssetStore', () => {
  it('puts the bytes in the images bucket with their type and a checksum S3 verifies', async () => {
    s3.on(PutObjectCommand).resolves({});
    await themeAssetStore.put('demo', THEME, asset, Buffer.from('hello'));
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toMatchObject({
      Bucket: 'images-bucket',
      Key: `tenants/demo/themes/${THEME}/${asset.secret}.png`,
      ContentType: 'image/png',
      ChecksumSHA256: Buffer.from('a'.repeat(64), 'hex').toString('base64'),
    });
  });

  it('reads the bytes back, and nothing for an object that is not there', async () => {
    s3.on(GetObjectCommand, { Key: `tenants/demo/themes/${THEME}/${asset.secret}.png` }).resolves({ Body: { transformToByteArray: async () => new Uint8Array(Buffer.from('hello')) } as never });
    expect(await themeAssetStore.get('demo', THEME, asset)).toEqual(Buffer.from('hello'));
    s3.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'gone', $metadata: {} }));
    expect(await themeAssetStore.get('demo', THEME, { ...asset, secret: 'ZZZZZZZZZZZZZZZZZZZZZZ' })).toBeUndefined();
  });
});
