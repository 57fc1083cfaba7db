import fs from 'node:fs';
import { InboundParseError, MessageReader } from './iso20022.parse.js';

/*
 * A process reading one large bank file (started by inbound.reader.ts through inbound.reader-child.mjs,
 * the file's path and piece size in its arguments): the file streamed from disk in pieces into the
 * streaming reader, its progress reported after each piece, then the message (or why it cannot be
 * read) sent back, and the process ends. Its heap is bounded (--max-old-space-size): a file that
 * needs more ends this process, never the one that answers the API.
 */

export type ReaderReply =
  | { kind: 'progress'; bytes: number }
  | { kind: 'message'; message: unknown }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'failed'; error: string };

const [file, pieceBytes] = process.argv.slice(2) as [string, string];
const send = (reply: ReaderReply) => new Promise<void>((resolve, reject) => process.send?.(reply, undefined, undefined, (err) => (err ? reject(err) : resolve())));

let last: ReaderReply;
try {
  const reader = new MessageReader();
  for await (const piece of fs.createReadStream(file, { highWaterMark: Number(pieceBytes) })) {
    reader.write(piece as Buffer);
    await send({ kind: 'progress', bytes: reader.bytes });
  }
  last = { kind: 'message', message: reader.end() };
} catch (err) {
  last = err instanceof InboundParseError ? { kind: 'unreadable', reason: err.message } : { kind: 'failed', error: err instanceof Error ? err.message : String(err) };
}
await send(last);
process.disconnect?.();
