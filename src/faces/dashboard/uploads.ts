import type { AppContext } from '../../platform/context.js';
import type { Storage } from '../../platform/storage/storage.js';
import { receiveUpload } from '../../platform/storage/uploads.service.js';

/**
 * A file a person chose in a form, stored through the signed upload URL the API would have handed
 * out (the same checks: signature, expiry, single use, size, type sniffed from the bytes).
 */
export async function storeSignedUpload(ctx: AppContext, storage: Storage, uploadUrl: string, bytes: Buffer): Promise<void> {
  const url = new URL(uploadUrl);
  const key = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf('/') + 1));
  await receiveUpload(ctx.db, storage, ctx.config, { key, expiresAtMs: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature') ?? '', bytes });
}
