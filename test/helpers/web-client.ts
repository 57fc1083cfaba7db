import type { WorkspaceRole } from '../../src/domains/users/rights.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { operator } from './app.js';

/**
 * A browser-like client over `inject`: keeps cookies, reads each page's CSRF token, and sends
 * forms as a browser would (same-origin). For the session rules a real browser adds nothing to;
 * the flows themselves are tested in Chromium.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    private readonly app: FastifyInstance,
    readonly origin = 'http://127.0.0.1:8080',
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: LightMyRequestResponse): void {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      if (c.value === '' || c.maxAge === 0 || (c.expires && c.expires.getTime() < Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() } });
    this.keep(res);
    return res;
  }

  /**
   * Opens an invitation link (its token moves into a cookie of the invitation page of the link's
   * face), loads the form, and, when it opened, sets the password. Every answer, for the test to check.
   */
  async acceptInvitation(link: string, password: string): Promise<{ opened: LightMyRequestResponse; form: LightMyRequestResponse; done: LightMyRequestResponse | undefined }> {
    const url = new URL(link);
    const opened = await this.get(url.pathname + url.search);
    const form = await this.get(url.pathname);
    const done = form.statusCode === 200 ? await this.post(url.pathname, { password, confirmation: password }) : undefined;
    return { opened, form, done };
  }

  /** A form POST; `_csrf` is the last page's token unless given, and Origin is this site unless given. */
  async post(url: string, form: Record<string, string | string[]>, options: { origin?: string | null; csrf?: string | null } = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null) body.set('_csrf', csrf);
    for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const origin = options.origin === undefined ? this.origin : options.origin;
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...(origin !== null ? { origin } : {}) },
      payload: body.toString(),
    });
    this.keep(res);
    return res;
  }

  /** A form POST carrying files (multipart/form-data), as a browser sends a form with a file input; `_csrf` is the last page's token. */
  async postMultipart(url: string, form: Record<string, string>, files: Record<string, { filename: string; contentType: string; bytes: Buffer }>): Promise<LightMyRequestResponse> {
    const boundary = `----corridor-test-${Math.random().toString(36).slice(2)}`;
    const parts: Buffer[] = [];
    const part = (headers: string, content: Buffer) => parts.push(Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), content, Buffer.from('\r\n'));
    for (const [k, v] of Object.entries({ _csrf: this.csrf, ...form })) part(`Content-Disposition: form-data; name="${k}"`, Buffer.from(v));
    for (const [k, f] of Object.entries(files)) part(`Content-Disposition: form-data; name="${k}"; filename="${f.filename}"\r\nContent-Type: ${f.contentType}`, f.bytes);
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader(), 'content-type': `multipart/form-data; boundary=${boundary}`, origin: this.origin },
      payload: Buffer.concat(parts),
    });
    this.keep(res);
    return res;
  }
}

/** A dashboard user of `workspaceId` with `role`, invited through the operator API and signed in (password set), as a browser-like client. */
export async function dashboardUser(app: FastifyInstance, workspaceId: string, email: string, role: WorkspaceRole = 'admin'): Promise<WebClient> {
  const invited = await operator(app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email, role });
  expect(invited.statusCode, invited.body).toBe(201);
  const client = new WebClient(app);
  expect((await client.acceptInvitation(invited.json<{ invitationUrl: string }>().invitationUrl, 'a long enough passphrase')).done?.statusCode).toBe(303);
  return client;
}
