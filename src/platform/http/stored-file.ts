import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

const EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png' };

/**
 * A stored file (an uploaded document, a proof of payment) sent to the operator, by the console and
 * the operator API alike: its own type, images shown inline, anything else (PDFs: the page's CSP
 * allows no plugin) downloaded; never sniffed, never cached.
 */
export function sendStoredFile(reply: FastifyReply, file: { contentType: string; bytes: Buffer; name: string }): FastifyReply {
  const disposition = file.contentType.startsWith('image/') ? 'inline' : 'attachment';
  const filename = `${file.name.replace(/[^A-Za-z0-9_.-]/g, '_')}.${EXTENSIONS[file.contentType] ?? 'bin'}`;
  // An image opened on its own is a document the browser draws with inline style: the pages' CSP
  // (no inline style) would break it, so the file gets its own, allowing nothing but that style
  // and the image (no script, sandboxed).
  if (disposition === 'inline') reply.header('content-security-policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox");
  return reply
    .type(file.contentType)
    .header('content-disposition', `${disposition}; filename="${filename}"`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .send(file.bytes);
}

/** A PDF Corridor writes (a statement, a payment confirmation), streamed as an attachment: never sniffed, never cached (it holds a workspace's money). */
export function sendPdfDocument(reply: FastifyReply, fileName: string, pdf: Readable): FastifyReply {
  return reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .send(pdf);
}
