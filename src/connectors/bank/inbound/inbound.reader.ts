import { fork } from 'node:child_process';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { InboundParseError, parseInbound, type InboundMessage } from './iso20022.parse.js';
import type { ReaderReply } from './inbound.reader-child.js';

/*
 * Reading a downloaded bank file into its message without stopping the API. A small file is read
 * here at once (a few milliseconds); a larger one is streamed from disk into the streaming reader in
 * a process of its own (inbound.reader-child.ts), its text never held whole, while this process goes
 * on answering requests. That process's heap is bounded (`"bank".inbound.readMemoryMb`): a file that
 * needs more ends it, not this process (a worker thread out of memory can abort the whole process: nodejs/node#47224),
 * and is quarantined with the reason.
 */

/** Files up to this size are read in this process (a few milliseconds); larger ones in a process of their own. */
export const READ_HERE_UP_TO_BYTES = 256 * 1024;
/** The pieces a file is streamed in; progress is reported after each. */
const PIECE_BYTES = 1024 * 1024;
const CHILD = fileURLToPath(new URL('./inbound.reader-child.mjs', import.meta.url));

export interface ReadOptions {
  /** The heap the reading process may use, in MB. */
  memoryMb: number;
  /** Progress of a file read in its own process (the bytes read so far). */
  onProgress?: ((bytes: number) => void) | undefined;
}

/** Reads a downloaded file (`size` bytes) into its message; InboundParseError with the reason when it cannot be read. */
export async function readInboundFile(file: string, size: number, options: ReadOptions): Promise<InboundMessage> {
  if (size <= READ_HERE_UP_TO_BYTES) return parseInbound(await fs.readFile(file));
  return new Promise<InboundMessage>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const child = fork(CHILD, [file, String(PIECE_BYTES)], {
      execArgv: [`--max-old-space-size=${options.memoryMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (piece: Buffer) => {
      stderr = (stderr + piece.toString()).slice(-4000);
    });
    child.on('message', (reply: ReaderReply) => {
      if (reply.kind === 'progress') options.onProgress?.(reply.bytes);
      else if (reply.kind === 'message') settle(() => resolve(reply.message as InboundMessage));
      else if (reply.kind === 'unreadable') settle(() => reject(new InboundParseError(reply.reason)));
      else settle(() => reject(new Error(`the file reader failed: ${reply.error}`)));
    });
    child.on('error', (err) => settle(() => reject(err)));
    child.on('close', (code, signal) =>
      settle(() =>
        reject(
          /heap out of memory|Reached heap limit/i.test(stderr)
            ? new InboundParseError(`reading the file needed more than the ${options.memoryMb} MB the reader may use ("bank".inbound.readMemoryMb): not read. Ask the bank to split it, or raise the limit`)
            : new Error(`the file reader stopped before it finished (${signal ?? `exit code ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' ')}`),
        ),
      ),
    );
  });
}
