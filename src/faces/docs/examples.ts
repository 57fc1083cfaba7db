/**
 * The examples of /openapi.json: real exchanges, not made up. test/docs/samples-run.test.ts runs
 * every operation's curl sample against a live server; `npm run openapi:examples` runs it with
 * CORRIDOR_RECORD_EXAMPLES=1, which writes what each sample sent and what the server answered to
 * examples.json (by operation id). The document carries them as the `example` of each JSON request
 * body and of the 2xx response answered; test/docs/reference-tools.test.ts checks that every one
 * still matches its schema exactly and that every JSON request body and 2xx answer has one.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

type Json = Record<string, unknown>;

export const EXAMPLES_FILE = fileURLToPath(new URL('./examples.json', import.meta.url));

export interface RecordedExample {
  status: number;
  request?: unknown;
  response?: unknown;
}

/** Fields whose values are credentials: recorded with their shape (prefix, length, separators) but not their characters. */
const SECRET_FIELD = /(^|_)(secret|token|password|passphrase)$|(Secret|Token|Password|Passphrase|PrivateKey)$|^privateKey$/;
/** Items kept of each array of an answer (a page of a list): enough to show an item. */
const ARRAY_ITEMS_MAX = 2;

/** `whsec_3Jd…` → `whsec_0123…`: the same prefix, length and punctuation, none of the characters. */
function masked(value: string): string {
  const [, prefix = '', rest = ''] = /^([a-z]{2,8}_)?([\s\S]*)$/.exec(value) ?? [];
  let i = 0;
  return prefix + rest.replace(/[A-Za-z0-9]/g, () => '0123456789abcdef'.charAt(i++ % 16));
}

/** A recorded value with its credentials masked (a URL's `token` query too) and its lists cut to their first items. */
export function scrubbed(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.slice(0, ARRAY_ITEMS_MAX).map((v) => scrubbed(v, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubbed(v, k)]));
  if (typeof value !== 'string') return value;
  if (SECRET_FIELD.test(key)) return masked(value);
  return value.replace(/([?&](?:token|signature|X-Amz-Signature|X-Amz-Credential)=)([^&]+)/gi, (_m, name: string, v: string) => `${name}${masked(v)}`);
}

/** The base URL recorded examples show for the server's own (the live test server's port changes every run). */
export const EXAMPLE_BASE_URL = 'http://127.0.0.1:8080';

/** What one sample exchanged with the server at `baseUrl`, ready for examples.json. */
export function recordedExample(status: number, request: unknown, responseText: string, baseUrl: string): RecordedExample {
  let response: unknown;
  try {
    response = responseText ? (JSON.parse(responseText.split(baseUrl).join(EXAMPLE_BASE_URL)) as unknown) : undefined;
  } catch {
    response = undefined; // Not JSON (a CSV export, a PDF): the document shows its media type only.
  }
  return { status, ...(request === undefined ? {} : { request: scrubbed(request) }), ...(response === undefined ? {} : { response: scrubbed(response) }) };
}

function readExamples(): Record<string, RecordedExample> {
  if (!fs.existsSync(EXAMPLES_FILE)) return {};
  return JSON.parse(fs.readFileSync(EXAMPLES_FILE, 'utf8')) as Record<string, RecordedExample>;
}

/** The recorded exchange stands for the media type: the schema's made-up `examples` give way (OpenAPI allows one of the two). */
function setExample(media: Json, value: unknown): void {
  if (value === undefined) return;
  media.example = value;
  delete media.examples;
}

/**
 * Each operation's recorded exchange as the `example` of its JSON request body and of the JSON
 * content of the 2xx it answered. After the code samples, which build their bodies from the schemas
 * (fresh clientRefs and shell variables), not from these.
 */
export function addRecordedExamples<T extends object>(document: T, examples: Record<string, RecordedExample> = readExamples()): T {
  const doc = document as unknown as Json;
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const op of Object.values(item) as Json[]) {
      const example = examples[String(op.operationId)];
      if (!example) continue;
      const body = op.requestBody as Json | undefined;
      const request = ((body?.content ?? {}) as Record<string, Json>)['application/json'];
      // A body the server does not need (every field optional) that the sample left out: it was taken as `{}`.
      if (request) setExample(request, example.request ?? (body?.required === false ? {} : undefined));
      const responses = (op.responses ?? {}) as Record<string, Json>;
      const answered = ((responses[String(example.status)]?.content ?? {}) as Record<string, Json>)['application/json'];
      if (!answered || example.response === undefined) continue;
      setExample(answered, example.response);
      // Another 2xx of the same shape (201 created, 200 the one that already existed): the same answer shows it.
      for (const [status, response] of Object.entries(responses)) {
        const media = ((response.content ?? {}) as Record<string, Json>)['application/json'];
        if (/^2/.test(status) && media && media.example === undefined && JSON.stringify(media.schema) === JSON.stringify(answered.schema)) setExample(media, example.response);
      }
    }
  }
  return document;
}
