import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../context.js';
import { AppError } from '../http/errors.js';
import { fieldError } from '../lib/errors.js';
import type { Storage } from './storage.js';
import { admitUpload, receiveUpload, type UploadUrl } from './uploads.service.js';

const UploadParams = Type.Object({ key: Type.String({ pattern: '^upl_[A-Za-z0-9_-]{24}$', 'x-message': 'is not an upload key this service issued' }) });
/** The query of a signed URL, by parameter: the schema's patterns, checked again before the body is read. */
const QUERY_PATTERNS = { expires: '^[0-9]{1,16}$', signature: '^[0-9a-f]{64}$' } as const;
const UploadQuery = Type.Object({
  expires: Type.String({ pattern: QUERY_PATTERNS.expires, description: 'Expiry of the URL (Unix milliseconds), as issued' }),
  signature: Type.String({ pattern: QUERY_PATTERNS.signature, description: 'HMAC-SHA256 of the key and expiry, as issued' }),
});
const Uploaded = Type.Object(
  { key: Type.String(), contentType: Type.String(), contentLength: Type.Integer() },
  { title: 'Upload', description: 'The stored file: register it with the resource that asked for it (e.g. POST /v2/applications/{id}/documents)' },
);

/**
 * The signed URL of a request, or a 400 naming the first query parameter missing or ill-formed
 * (the query schema's own patterns; checked before the body, where schema validation comes after it).
 */
function signedUrlOf(req: FastifyRequest): UploadUrl {
  const params = req.params as { key: string };
  const query = (req.query ?? {}) as Record<string, unknown>;
  for (const [name, pattern] of Object.entries(QUERY_PATTERNS)) {
    const value = query[name];
    if (typeof value !== 'string') throw fieldError(name, `${name} is required`);
    if (!new RegExp(pattern).test(value)) throw fieldError(name, `${name} must match pattern "${pattern}"`);
  }
  return { key: params.key, expiresAtMs: Number(query.expires), signature: String(query.signature) };
}

const declaredLength = (req: FastifyRequest): number | undefined =>
  req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);

/**
 * The PUT side of signed upload URLs: the URL is the credential (no bearer token). Takes the raw bytes
 * of any Content-Type, up to UPLOAD_BYTES_MAX. Everything that needs no body (the signature, the expiry,
 * the slot, a Content-Length over UPLOAD_BYTES_MAX or other than declared) is refused before it is read.
 */
export function uploadRoutes(app: FastifyInstance, ctx: AppContext, storage: Storage): void {
  const bytesMax = ctx.config.limits.uploadBytesMax;
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: bytesMax }, (_req, body, done) => done(null, body));
    scope.put<{ Params: Static<typeof UploadParams>; Querystring: Static<typeof UploadQuery> }>(
      '/v2/uploads/:key',
      {
        config: { auth: 'none' },
        bodyLimit: bytesMax,
        onRequest: async (req) => {
          const length = declaredLength(req);
          if (length !== undefined && length > bytesMax) {
            throw new AppError({ status: 413, code: 'UPLOAD_TOO_LARGE', message: `The file is larger than ${bytesMax} bytes (UPLOAD_BYTES_MAX)` });
          }
          await admitUpload(ctx.db, storage, ctx.config, { ...signedUrlOf(req), declaredLength: length });
        },
        schema: {
          tags: ['Uploads'],
          operationId: 'uploadFile',
          summary: 'Upload a file to a signed upload URL (single use, valid 15 minutes)',
          description: `The URL comes from an upload-url operation (e.g. POST /v2/applications/{id}/documents/upload-url) and is the only credential. The body is the file's raw bytes: PDF, JPEG or PNG, recognised from its content, at most ${bytesMax} bytes, exactly the contentLength declared. Refusals store nothing, and those that need no body (signature, expiry, single use, a Content-Length over the limit or other than declared) come before the body is read: 403 UPLOAD_URL_INVALID (not issued here) or UPLOAD_URL_EXPIRED, 409 UPLOAD_URL_USED (a URL takes one file), 400 UPLOAD_SIZE_MISMATCH, 413 UPLOAD_TOO_LARGE, 415 UPLOAD_TYPE_NOT_ALLOWED or UPLOAD_TYPE_MISMATCH (not the declared contentType).`,
          params: UploadParams,
          querystring: UploadQuery,
          consumes: ['application/pdf', 'image/jpeg', 'image/png', 'application/octet-stream'],
          response: { 200: Uploaded },
        },
      },
      async (req) => {
        const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        return receiveUpload(ctx.db, storage, ctx.config, {
          key: req.params.key,
          expiresAtMs: Number(req.query.expires),
          signature: req.query.signature,
          bytes,
        });
      },
    );
  });
}
