import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Corridor, CorridorError, type CorridorEvent, type EventType } from '../../packages/sdk/src/index.js';
import { EVENT_TYPES } from '../domains/webhooks/event-types.js';
import { signedHeaders } from '../domains/webhooks/signature.js';
import { newWebhookSecret } from '../domains/webhooks/webhooks.service.js';

/** How long the local receiver may take to answer one forwarded event (as real deliveries: 30 s). */
const FORWARD_TIMEOUT_MS = 30_000;

export interface ListenOptions {
  corridor: Corridor;
  /** The local receiver; plain http://localhost is allowed here. */
  forwardTo: string;
  /** Only these event types (default: all). */
  types?: EventType[] | undefined;
  /** The signing secret to sign with (default: the one kept in `stateFile` for this API and credential, made on the first run; printed). */
  secret?: string | undefined;
  /** Resume after this event id (`--since`); without it, after the last event forwarded to `forwardTo` (kept in `stateFile`). */
  lastEventId?: string | undefined;
  /** Where the last event forwarded to each target is kept between runs; none: not kept. */
  stateFile?: string | undefined;
  signal?: AbortSignal;
  /** Where the lines go (default stdout). */
  write?: (line: string) => void;
}

/** ~/.corridor/listen.json: the last event id forwarded, per API, credential and forward target. */
export function defaultStateFile(): string {
  return path.join(os.homedir(), '.corridor', 'listen.json');
}

/** The key of one forward target in the state file: the same stream (API and credential) to the same URL. */
const targetKey = (baseUrl: string, clientId: string, forwardTo: string): string => `${baseUrl} ${clientId} -> ${forwardTo}`;

function readState(file: string): Record<string, string> {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The key of the signing secret in the state file: one per API and credential, whatever the target, kept across runs. */
const secretKey = (baseUrl: string, clientId: string): string => `secret ${baseUrl} ${clientId}`;

/** Keeps `value` under `key` in the state file (written atomically: a rename). */
function remember(file: string, key: string, value: string): void {
  const state = readState(file);
  state[key] = value;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The event types of `--events a,b`; an unknown one (a typo) is refused with the list of types. */
export function eventTypesOf(list: string | undefined): EventType[] | undefined {
  const names = list?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!names?.length) return undefined;
  const known = new Set<string>(EVENT_TYPES);
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new Error(`unknown event type ${unknown.join(', ')}; the types are ${EVENT_TYPES.join(', ')}`);
  return names as EventType[];
}

/** The envelope real deliveries carry: `{id, type, createdAt, test, data}`. */
export function deliveryBody(event: CorridorEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, test: event.test, data: event.data });
}

/** The line told before the stream reconnects: after its token expired (with a new one, at once), or after it dropped. */
function reconnectLine(reason: unknown, delayMs: number, lastEventId: string | undefined): string {
  const after = lastEventId ? ` after ${lastEventId}` : '';
  if (reason instanceof CorridorError && reason.code === 'TOKEN_EXPIRED') return `Token expired; resuming with a new token${after}`;
  return `Stream dropped${reason instanceof Error ? ` (${reason.message})` : ''}; reconnecting in ${Math.round(delayMs / 100) / 10} s${after}`;
}

/** Why listening stopped, said plainly: the credential may no longer read the stream (revoked, scope removed) or gets no token. */
function stopped(err: unknown): unknown {
  if (!(err instanceof CorridorError)) return err;
  return new Error(`Stream ended: ${err.message}${err.code ? ` (${err.code})` : ''}; not reconnecting`, { cause: err });
}

/**
 * `corridor listen`: follows the event stream (reconnecting with Last-Event-ID after a dropped
 * connection, and with a new token at the token's expiry) and POSTs each event to the local URL
 * signed as real deliveries are (X-Service-Signature over `<timestamp>.<body>` and the Standard
 * Webhooks headers, with the printed secret, the same at every start), one line per event. Stops with a clear error when the credential may no longer read.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const write = options.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const key = targetKey(options.corridor.baseUrl, options.corridor.clientId, options.forwardTo);
  const state = options.stateFile ? readState(options.stateFile) : {};
  const secret = options.secret ?? state[secretKey(options.corridor.baseUrl, options.corridor.clientId)] ?? newWebhookSecret();
  // The secret is the same at every start (the receiver's configuration keeps working), unless given.
  if (options.stateFile && !options.secret) remember(options.stateFile, secretKey(options.corridor.baseUrl, options.corridor.clientId), secret);
  const remembered = state[key];
  const lastEventId = options.lastEventId ?? remembered;
  write(`Forwarding events to ${options.forwardTo}${options.types?.length ? ` (${options.types.join(', ')})` : ''}`);
  if (lastEventId) write(`Resuming after ${lastEventId}${options.lastEventId ? '' : ' (the last event forwarded there)'}`);
  write(`Signing secret: ${secret}`);
  const stream = options.corridor.events.stream({
    ...(options.types?.length ? { types: options.types } : {}),
    ...(lastEventId ? { lastEventId } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    reconnectsMax: 1000,
    onReconnect: (reason, delayMs, lastEventId) => write(reconnectLine(reason, delayMs, lastEventId)),
  });
  try {
    for await (const event of stream) {
      write(await forward(options.forwardTo, secret, event));
      if (options.stateFile) remember(options.stateFile, key, event.id);
    }
  } catch (err) {
    throw stopped(err);
  }
}

async function forward(url: string, secret: string, event: CorridorEvent): Promise<string> {
  const body = deliveryBody(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = Date.now();
  let outcome: string;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Corridor-CLI-Listen/1', ...signedHeaders({ secret }, event.id, timestamp, body) },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    outcome = String(res.status);
  } catch (err) {
    outcome = `error (${err instanceof Error ? err.message : String(err)})`;
  }
  return `${new Date().toISOString()}  ${event.type.padEnd(28)} ${event.id}  -> ${outcome} in ${Date.now() - started} ms`;
}
