import type { ThemeAssetStore } from '../theme-server/model.js';
import { objectKeys } from '../store/keys.js';
import { s3 } from './images.js';

/**
 * Themes' fonts and images, in the images bucket under `tenants/{tenantId}/themes/{themeId}/`
 * (objectKeys.themeAsset), with the bucket's client and tenant role (adapters/images.ts): a
 * function acting for one tenant reaches that tenant's prefix only.
 */
export const themeAssetStore: ThemeAssetStore = {
  async put(tenantId, themeId, asset, bytes) {
    const { client, bucket, commands } = await s3();
    await client.send(
      new commands.PutObjectCommand({
        Bucket: bucket,
        Key: objectKeys.themeAsset(tenantId, themeId, asset.secret, asset.fileExtension),
        Body: bytes,
        ContentType: asset.contentType,
        // S3 checks the bytes it received against this digest and refuses the upload otherwise.
        ChecksumSHA256: Buffer.from(asset.sha256, 'hex').toString('base64'),
      }),
    );
  },

  async get(tenantId, themeId, asset) {
    const { client, bucket, commands } = await s3();
    try {
      const out = await client.send(new commands.GetObjectCommand({ Bucket: bucket, Key: objectKeys.themeAsset(tenantId, themeId, asset.secret, asset.fileExtension) }));
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (err) {
      if (err instanceof Error && err.name === 'NoSuchKey') return undefined;
      throw err;
    }
  },
};
