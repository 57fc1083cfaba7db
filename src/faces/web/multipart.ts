import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/http/errors.js';
import { fieldError } from '../../platform/lib/errors.js';

/**
 * Forms that carry a file (a proof of payment, a document, a CSV of payouts) post
 * multipart/form-data: the page framework parses it into the same body as a plain form (text
 * fields as strings) with each file as an `UploadedFile`. No dependency: a form's body is small
 * (at most UPLOAD_BYTES_MAX) and read whole.
 */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly contentType: string,
    readonly bytes: Buffer,
  ) {}

  /** What the audit log and a form's idempotency fingerprint see: never the bytes, only their digest. */
  toJSON(): { filename: string; contentType: string; size: number; sha256: string } {
    return { filename: this.filename, contentType: this.contentType, size: this.bytes.length, sha256: createHash('sha256').update(this.bytes).digest('hex') };
  }
}

const malformed = () => new AppError({ status: 400, code: 'FORM_MALFORMED', message: 'The form could not be read (malformed multipart body). Reload the page and try again.' });

/** The parameter `name` of a header value such as `form-data; name="proof"; filename="a.png"`. */
function headerParam(value: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${name}="([^"]*)"`, 'i').exec(value) ?? new RegExp(`(?:^|;)\\s*${name}=([^;\\s]+)`, 'i').exec(value);
  return match?.[1];
}

export function parseMultipart(body: Buffer, contentType: string): Record<string, string | string[] | UploadedFile> {
  const boundary = headerParam(contentType, 'boundary');
  if (!boundary) throw malformed();
  const delimiter = Buffer.from(`--${boundary}`);
  const fields: Record<string, string | string[] | UploadedFile> = {};
  let at = body.indexOf(delimiter);
  if (at < 0) throw malformed();
  for (;;) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) throw malformed();
    const part = body.subarray(start + 2, next - 2); // past the CRLF after the delimiter, before the CRLF ending the part
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) throw malformed();
    const headers = part.subarray(0, split).toString('utf8').split('\r\n');
    const content = part.subarray(split + 4);
    const disposition = headers.find((h) => /^content-disposition:/i.test(h)) ?? '';
    const type = headers.find((h) => /^content-type:/i.test(h))?.replace(/^content-type:\s*/i, '').trim() ?? 'application/octet-stream';
    const name = headerParam(disposition, 'name');
    const filename = headerParam(disposition, 'filename');
    if (name) {
      if (filename !== undefined) {
        if (filename !== '' || content.length > 0) fields[name] = new UploadedFile(filename, type, Buffer.from(content));
      } else {
        const text = content.toString('utf8');
        const previous = fields[name];
        fields[name] = previous === undefined ? text : Array.isArray(previous) ? [...previous, text] : typeof previous === 'string' ? [previous, text] : text;
      }
    }
    at = next;
  }
  return fields;
}

/** Takes multipart/form-data in the web pages' scope, up to `bytesMax`. */
export function acceptMultipartForms(scope: FastifyInstance, bytesMax: number): void {
  scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: bytesMax }, (req, body, done) => {
    try {
      done(null, parseMultipart(body as Buffer, String(req.headers['content-type'] ?? '')));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/** The file sent in field `name`, or a field error asking for one. */
export function formFile(req: FastifyRequest, name: string, what = 'a file'): UploadedFile {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  if (!(value instanceof UploadedFile) || value.bytes.length === 0) throw fieldError(name, `Choose ${what} to upload`);
  return value;
}
