import pg from 'pg';

/**
 * A `DATABASE_URL` naming several servers, as libpq reads it:
 * `postgres://user@db1:5432,db2:5432/corridor?target_session_attrs=read-write`. node-postgres
 * connects to one host only, so the client class made here picks the server: the one that suited
 * last, else each in the URL's order, the first that accepts the connection and (with
 * `read-write` or `primary`) takes writes. After a failover the old primary refuses connections or
 * is read-only, so new connections go to the promoted standby without a restart.
 */

export interface HostPort {
  host: string;
  port: number;
}

/** libpq's target_session_attrs values that Corridor supports (it writes: `read-only` and `standby` make no sense). */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';
const SUPPORTED_ATTRS: readonly string[] = ['any', 'read-write', 'primary'];

export interface DatabaseTarget {
  hosts: HostPort[];
  targetSessionAttrs: TargetSessionAttrs;
  /** The URL with the first host only and no target_session_attrs: what node-postgres parses. */
  connectionString: string;
}

const DEFAULT_PORT = 5432;

function parseHost(entry: string, url: string): HostPort {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry); // [IPv6]:port
  const plain = /^([^:[\]]*)(?::(\d+))?$/.exec(entry);
  const match = bracketed ?? plain;
  if (!match || (!match[1] && !bracketed)) throw new Error(`DATABASE_URL has an invalid host "${entry}" in ${redact(url)}`);
  return { host: match[1] ?? '', port: match[2] ? Number(match[2]) : DEFAULT_PORT };
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** Parses a (possibly multi-host) PostgreSQL URL. A URL of one host and no target_session_attrs comes back as it was. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const m = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/.exec(url);
  if (!m) return { hosts: [], targetSessionAttrs: 'any', connectionString: url };
  const [, scheme, authority = '', rest = ''] = m;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostList = authority.slice(at + 1);
  const hosts = hostList === '' ? [] : hostList.split(',').map((entry) => parseHost(entry, url));
  let targetSessionAttrs: TargetSessionAttrs = 'any';
  let tail = rest;
  const q = rest.indexOf('?');
  if (q >= 0) {
    const params = new URLSearchParams(rest.slice(q + 1));
    const attrs = params.get('target_session_attrs');
    if (attrs !== null) {
      if (!SUPPORTED_ATTRS.includes(attrs)) throw new Error(`DATABASE_URL: target_session_attrs=${attrs} is not supported (any, read-write or primary)`);
      targetSessionAttrs = attrs as TargetSessionAttrs;
      params.delete('target_session_attrs');
    }
    const query = params.toString();
    tail = rest.slice(0, q) + (query ? `?${query}` : '');
  }
  if (hosts.length <= 1 && targetSessionAttrs === 'any') return { hosts, targetSessionAttrs, connectionString: url };
  const first = hosts[0];
  const hostText = first ? `${first.host.includes(':') ? `[${first.host}]` : first.host}:${first.port}` : '';
  return { hosts, targetSessionAttrs, connectionString: `${scheme}${userinfo}${hostText}${tail}` };
}

/** An error of the connection class (08001: cannot establish), which callers retry and answer 503. */
function noServerSuits(target: DatabaseTarget, reasons: string[]): Error {
  return Object.assign(new Error(`no server of DATABASE_URL accepts a ${target.targetSessionAttrs} session: ${reasons.join('; ')}`), { code: '08001' });
}

/** Points a client not yet connected at `server` (its connection string named the first host; it wins over host and port options). */
function aim<C extends pg.Client>(client: C, server: HostPort): C {
  const c = client as unknown as { host: string; port: number; connectionParameters: { host: string; port: number } };
  c.host = c.connectionParameters.host = server.host;
  c.port = c.connectionParameters.port = server.port;
  return client;
}

/** Whether a session suits: `read-write` takes writes, `primary` is not in recovery. */
async function suits(client: pg.Client, attrs: TargetSessionAttrs): Promise<boolean> {
  if (attrs === 'any') return true;
  const { rows } = await client.query<{ writable: boolean; recovery: boolean }>(
    "SELECT current_setting('transaction_read_only') = 'off' AS writable, pg_is_in_recovery() AS recovery",
  );
  const row = rows[0];
  return attrs === 'primary' ? row?.recovery === false : row?.writable === true;
}

/**
 * The pg.Client class and connection string for `url`: pg's own for a URL of one host and no
 * target_session_attrs, else a client that chooses its server as described above. Each call makes
 * its own memory of the server that suited last (one per pool or listener).
 */
export function pgClientFor(url: string): { Client: typeof pg.Client; connectionString: string } {
  const target = parseDatabaseUrl(url);
  if (target.hosts.length <= 1 && target.targetSessionAttrs === 'any') return { Client: pg.Client, connectionString: url };
  let preferred: HostPort | undefined;

  class MultiHostClient extends pg.Client {
    private readonly config: pg.ClientConfig;
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.config = typeof config === 'string' ? { connectionString: config } : { ...config };
    }

    /** Tries each server with a connection of its own (a client connects once) and remembers the first that suits. */
    private async find(): Promise<HostPort> {
      const reasons: string[] = [];
      for (const server of target.hosts) {
        const probe = aim(new pg.Client({ ...this.config, application_name: 'corridor-probe' }), server);
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          if (await suits(probe, target.targetSessionAttrs)) return (preferred = server);
          reasons.push(`${server.host}:${server.port} is not ${target.targetSessionAttrs}`);
        } catch (err) {
          reasons.push(`${server.host}:${server.port}: ${err instanceof Error ? err.message : String(err)}`);
        } finally {
          await probe.end().catch(() => undefined);
        }
      }
      throw noServerSuits(target, reasons);
    }

    private async connectToTarget(): Promise<void> {
      const server = preferred ?? (await this.find());
      aim(this as pg.Client, server);
      try {
        await super.connect();
        if (await suits(this as pg.Client, target.targetSessionAttrs)) return;
      } catch (err) {
        if (preferred === server) preferred = undefined;
        throw err;
      }
      // The server that suited no longer does (a primary demoted): the next connection looks again.
      if (preferred === server) preferred = undefined;
      await this.end().catch(() => undefined);
      throw noServerSuits(target, [`${server.host}:${server.port} is no longer ${target.targetSessionAttrs}`]);
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
      const connected = this.connectToTarget().then(() => this as pg.Client);
      if (!callback) return connected;
      connected.then(
        (c) => (callback as (err: null, c: pg.Client) => void)(null, c),
        (err: Error) => (callback as (err: Error) => void)(err),
      );
    }
  }

  return { Client: MultiHostClient, connectionString: target.connectionString };
}
