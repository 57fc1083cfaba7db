import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import { freePort } from './processes.js';

/** A person the provider knows: their login id and the claims it vouches for. */
export interface ProviderPerson {
  email: string;
  emailVerified?: boolean;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  /** Signs `login` in at the provider from an authorization URL, and answers the URL it sends the browser back to. */
  signIn: (authorizationUrl: string, login: string) => Promise<string>;
  close: () => Promise<void>;
}

/**
 * A real OpenID provider (npm oidc-provider) on a port of its own, with one confidential client,
 * PKCE required, and its development login and consent pages, driven as a browser would (cookies kept).
 */
export async function startOidcProvider(options: { clientId: string; clientSecret: string; redirectUris: string[]; people: Record<string, ProviderPerson> }): Promise<TestProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: options.clientId, client_secret: options.clientSecret, redirect_uris: options.redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['groups'] },
    pkce: { required: () => true },
    cookies: { keys: ['test-provider-cookie-key'] },
    findAccount: async (_ctx, id) => {
      const person = options.people[id];
      if (!person) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, email: person.email, email_verified: person.emailVerified ?? true, groups: person.groups ?? [] }) };
    },
  });
  const server: Server = provider.listen(port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));

  async function signIn(authorizationUrl: string, login: string): Promise<string> {
    const jar = new Map<string, string>();
    let url = authorizationUrl;
    let body: string | undefined;
    for (let step = 0; step < 20; step++) {
      const res = await fetch(url, {
        method: body ? 'POST' : 'GET',
        redirect: 'manual',
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(body ? { body } : {}),
      });
      for (const setCookie of res.headers.getSetCookie()) {
        const pair = setCookie.split(';')[0] as string;
        jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, url).href;
        if (!next.startsWith(issuer)) return next;
        url = next;
        body = undefined;
        continue;
      }
      const page = await res.text();
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
      const uid = /\/interaction\/([^/?"]+)/.exec(url)?.[1];
      if (!prompt || !uid) throw new Error(`the provider answered ${res.status} at ${url}: ${page.slice(0, 500)}`);
      url = `${issuer}/interaction/${uid}`;
      body = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt }).toString();
    }
    throw new Error('the provider never sent the browser back');
  }

  return { issuer, signIn, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
