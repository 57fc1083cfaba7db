/**
 * What may reach a log line. Logs are read by more people, kept longer and copied further than the
 * database, so they get no personal data and no credentials: a database error is logged by its
 * SQLSTATE and the names of what it concerns, never its SQL, parameters or the values PostgreSQL
 * quotes in its message and detail; a URL is logged with credential-like query values redacted.
 */

export const REDACTED = '[redacted]';

/** Query parameter names whose values are credentials (matched case-insensitively, `-` and `_` alike). */
const CREDENTIAL_PARAM = /^(code|key|sig|signature|auth|authorization|jwt|session|sessionid|otp|pwd|passwd|pass)$|token|secret|password|apikey|privatekey|accesskey|credential/;

/** A JWT (or any JWS) anywhere in a value. */
const JWS_LIKE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

function isCredentialParam(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // keep the raw name
  }
  return CREDENTIAL_PARAM.test(decoded.toLowerCase().replace(/[-_]/g, ''));
}

function isCredentialValue(value: string): boolean {
  let decoded = value;
  try {
    decoded = decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    // keep the raw value
  }
  return JWS_LIKE.test(decoded);
}

/** The URL with the values of credential-like query parameters (and anything shaped like a JWT) replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      const value = eq < 0 ? '' : part.slice(eq + 1);
      if (eq < 0) return isCredentialValue(name) ? REDACTED : part;
      return isCredentialParam(name) || isCredentialValue(value) ? `${name}=${REDACTED}` : part;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

/** Fields of a PostgreSQL error that name things (never hold row values): safe to log. */
const DATABASE_ERROR_NAMES = ['severity', 'schema', 'table', 'column', 'dataType', 'constraint', 'routine'] as const;
const SQLSTATE = /^[0-9A-Z]{5}$/;
const ERROR_DEPTH_MAX = 3;
const ERRORS_LISTED_MAX = 5;

/** A database error: it has a SQLSTATE, or carries the statement (PGlite attaches `query` and `params`). */
function isDatabaseError(e: Record<string, unknown>): boolean {
  return (typeof e.code === 'string' && SQLSTATE.test(e.code) && 'severity' in e) || 'query' in e || 'params' in e || 'internalQuery' in e;
}

/** PostgreSQL quotes the offending value in its messages (`invalid input syntax for type integer: "Ada"`). */
function withoutQuotedValues(message: string): string {
  return message.replace(/"(?:[^"\\]|\\.)*"/g, `"${REDACTED}"`).replace(/'(?:[^'\\]|\\.)*'/g, `'${REDACTED}'`);
}

/**
 * The log form of an error. A database error keeps its type, SQLSTATE, message (quoted values
 * redacted) and the names of the table, column or constraint; its SQL, parameters, `detail`,
 * `where`, `hint` and stack are left out. Any other error keeps message, code and stack. Causes and
 * aggregated errors are followed to a bounded depth.
 */
export function serializeError(err: unknown, depth = 0): Record<string, unknown> {
  if (typeof err !== 'object' || err === null) return { type: typeof err, message: String(err) };
  const e = err as Record<string, unknown> & { constructor?: { name?: string } };
  const message = typeof e.message === 'string' ? e.message : '';
  const database = isDatabaseError(e);
  // Database drivers' classes may be minified: name the kind, not the class.
  const out: Record<string, unknown> = { type: database ? 'DatabaseError' : (e.constructor?.name ?? 'Object') };
  if (database) {
    out.message = withoutQuotedValues(message);
    if (typeof e.code === 'string') out.code = e.code;
    for (const name of DATABASE_ERROR_NAMES) if (typeof e[name] === 'string') out[name] = e[name];
  } else {
    out.message = message;
    for (const name of ['code', 'errno', 'syscall', 'address', 'port'] as const) if (e[name] !== undefined) out[name] = e[name];
    if (typeof e.stack === 'string') out.stack = e.stack;
  }
  if (depth < ERROR_DEPTH_MAX) {
    if (e.cause !== undefined) out.cause = serializeError(e.cause, depth + 1);
    if (Array.isArray(e.errors)) out.errors = e.errors.slice(0, ERRORS_LISTED_MAX).map((inner) => serializeError(inner, depth + 1));
  }
  return out;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  host?: string;
  socket?: { remotePort?: number } | null;
}

/** Pino serializers for every logger of the process (Fastify's request lines included). */
export const logSerializers = {
  err: serializeError,
  error: serializeError,
  req: (req: LoggedRequest) => ({
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};
