import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fieldError } from '../../platform/lib/errors.js';
import { checkboxes, copyable, facts, field, link, notice, postForm, secretOnce, section, select, status, table, when, pageNav, pagePosition, pageRequest, type PagePosition } from '../web/components.js';
import { formList, formOptional, formText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import * as credentials from '../../domains/auth/credentials.service.js';
import { ALL_SCOPES } from '../../domains/auth/scopes.js';
import { actingAccount, canChange, rightPage, dashboardUser, memberPage, refusalOf, type Refusal } from './caller.js';

type Credential = ReturnType<typeof credentials.credentialData>;

const LABEL_LENGTH_MAX = 100;
/** The grace periods the rotate form offers; any other number of seconds goes in its own field. */
const GRACE_CHOICES = [
  { value: '0', label: 'None: the old secret stops now' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '1 day' },
  { value: String(credentials.ROTATION_GRACE_SECONDS_MAX), label: '7 days' },
] as const;

/** A new credential starts with reading only; writing is ticked on purpose. */
const READ_SCOPES = ALL_SCOPES.filter((scope) => scope.startsWith('read:'));

/** The scopes ticked: at least one (a credential that may do nothing is a mistake, not a choice). */
function chosenScopes(req: FastifyRequest): string[] {
  const scopes = formList(req, 'scopes', ALL_SCOPES.length);
  if (scopes.length === 0) throw fieldError('scopes', 'Tick at least one scope: a credential with none can do nothing');
  return scopes;
}

const noRefusal: Refusal = { status: 200, message: '', fields: {} };
const refusalNotice = (refusal: Refusal): Html | '' => (refusal.message ? notice('error', refusal.message) : '');
const detailPath = (clientId: string): string => `/dashboard/credentials/${encodeURIComponent(clientId)}`;

function createForm(req: FastifyRequest, refusal: Refusal): Html {
  const chosen = req.method === 'POST' ? formList(req, 'scopes', ALL_SCOPES.length) : READ_SCOPES;
  return section(
    'New credential',
    refusalNotice(refusal),
    postForm(
      { action: '/dashboard/credentials', csrf: req.web.csrf, submit: 'Create credential' },
      field({ label: 'Label', name: 'label', value: req.method === 'POST' ? formText(req, 'label') : undefined, help: 'What uses it, e.g. "billing server"', error: refusal.fields.label }),
      checkboxes({ legend: 'Scopes (write includes read)', name: 'scopes', options: ALL_SCOPES, checked: chosen, error: refusal.fields.scopes }),
    ),
  );
}

function listBody(req: FastifyRequest, page: { data: Credential[]; nextCursor: string | null; total?: number; at: PagePosition }, refusal = noRefusal): Html {
  return html`${section(
    'Credentials',
    html`<p class="help">Client id and secret pairs your servers exchange for API tokens at /oauth/token. Secrets are shown once, when made.</p>`,
    table(
      'The workspace credentials, newest first',
      [
        { label: 'Label', cell: (c) => link(detailPath(c.clientId), c.label ?? 'unlabelled') },
        { label: 'Client id', cell: (c) => html`<code>${c.clientId}</code>` },
        { label: 'Status', cell: (c) => status(c.status) },
        { label: 'Scopes', cell: (c) => (c.scopes.length === ALL_SCOPES.length ? 'all' : c.scopes.join(', ') || 'none') },
        { label: 'Last used', cell: (c) => when(c.lastUsedAt) },
        { label: 'Created', cell: (c) => when(c.createdAt) },
      ],
      page.data,
      'No credentials yet.',
    ),
    pageNav('/dashboard/credentials', {}, page.at, page),
  )}${canChange(req, 'credentials') ? createForm(req, refusal) : ''}`;
}

function rotateForm(req: FastifyRequest, clientId: string, refusal: Refusal): Html {
  return section(
    'Rotate the secret',
    html`<p>A new secret is made and shown once. The old one keeps working for the grace period you choose, so your servers can switch over; then it stops.</p>`,
    postForm(
      { action: `${detailPath(clientId)}/rotate`, csrf: req.web.csrf, submit: 'Rotate secret', confirm: 'Make a new secret for this credential?' },
      select({ label: 'The old secret keeps working for', name: 'graceSeconds', options: GRACE_CHOICES, value: req.method === 'POST' ? formText(req, 'graceSeconds') : '0' }),
      field({
        label: 'Or a grace period in seconds',
        name: 'graceCustomSeconds',
        inputmode: 'numeric',
        pattern: '[0-9]*',
        help: `0 to ${credentials.ROTATION_GRACE_SECONDS_MAX} (7 days); when given, it is used instead of the choice above`,
        error: refusal.fields.graceCustomSeconds ?? refusal.fields.graceSeconds,
      }),
    ),
  );
}

function changeForms(req: FastifyRequest, credential: Shown, refusal: Refusal): Html {
  const path = detailPath(credential.clientId);
  return html`${rotateForm(req, credential.clientId, refusal)}
${section(
  'Scopes',
  postForm(
    { action: `${path}/scopes`, csrf: req.web.csrf, submit: 'Save scopes' },
    checkboxes({ legend: 'What its tokens may do (applies to its next request)', name: 'scopes', options: ALL_SCOPES, checked: req.method === 'POST' && req.url.endsWith('/scopes') ? formList(req, 'scopes', ALL_SCOPES.length) : credential.scopes, error: refusal.fields.scopes }),
  ),
)}
${section(
  'Revoke',
  html`<p>Its tokens are refused from the next request and its secrets get no new token. This cannot be undone.</p>`,
  postForm({ action: `${path}/revoke`, csrf: req.web.csrf, submit: 'Revoke credential', danger: true, confirm: 'Revoke this credential? Its tokens stop working at once.' }),
)}`;
}

type Shown = Credential & { previousSecretUntil: string | null };

function detailBody(req: FastifyRequest, credential: Shown, refusal = noRefusal): Html {
  return html`${refusalNotice(refusal)}${section(
    'Credential',
    facts([
      ['Label', credential.label],
      ['Client id', copyable(credential.clientId)],
      ['Status', status(credential.status)],
      ['Previous secret', credential.previousSecretUntil ? html`still works until ${when(credential.previousSecretUntil)} (grace period after the last rotation), then stops` : null],
      ['Last used', when(credential.lastUsedAt)],
      ['Created', when(credential.createdAt)],
      ['Scopes', credential.scopes.join(', ') || 'none'],
    ]),
  )}${canChange(req, 'credentials') && credential.status === 'active' ? changeForms(req, credential, refusal) : ''}
<p>${link('/dashboard/credentials', '← All credentials')}</p>`;
}

/** The grace period the rotate form asks for: the seconds typed in, else the choice. */
function graceSecondsOf(req: FastifyRequest): number {
  const custom = formOptional(req, 'graceCustomSeconds', 10);
  const text = custom ?? formText(req, 'graceSeconds', { maxLength: 10 });
  if (!/^\d+$/.test(text)) throw fieldError(custom === undefined ? 'graceSeconds' : 'graceCustomSeconds', 'Give the grace period as a whole number of seconds');
  return Number(text);
}

/** Credentials of the workspace: list, create (secret shown once), rotate (new secret shown once), scopes, revoke. */
export function credentialPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  const workspaceOf = (req: FastifyRequest) => dashboardUser(req).workspaceId;
  const listPage = async (req: FastifyRequest) => {
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    return { ...(await credentials.listCredentials(ctx.db, workspaceOf(req), pageRequest(at))), at };
  };
  const credentialOf = async (req: FastifyRequest<{ Params: { clientId: string } }>): Promise<Shown> => ({
    ...credentials.credentialData(await credentials.getCredential(ctx.db, workspaceOf(req), req.params.clientId)),
    previousSecretUntil: await credentials.previousSecretWorksUntil(ctx.db, workspaceOf(req), req.params.clientId),
  });

  app.get('/dashboard/credentials', memberPage, async (req, reply) => sendPage(web, req, reply, { title: 'Credentials', body: listBody(req, await listPage(req)) }));

  app.post('/dashboard/credentials', rightPage('credentials'), async (req, reply) => {
    try {
      const scopes = chosenScopes(req);
      reply.code(201); // the answer when it commits (its audit entry records it)
      const issued = await ctx.db.tx((tx) => credentials.issueCredential(tx, ctx.box, actingAccount(req), { scopes, label: formOptional(req, 'label', LABEL_LENGTH_MAX), issuedToUser: dashboardUser(req).id }));
      const body = html`${secretOnce('The client secret.', issued.clientSecret)}
${facts([
  ['Client id', html`<code>${issued.clientId}</code>`],
  ['Scopes', issued.scopes.join(', ') || 'none'],
])}
<p>Exchange the pair for a token at <code>POST /oauth/token</code> (grant type client_credentials).</p>
<p>${link(detailPath(issued.clientId), 'This credential')} · ${link('/dashboard/credentials', 'All credentials')}</p>`;
      return sendPage(web, req, reply, { title: 'Credential created', status: 201, body });
    } catch (err) {
      const refusal = refusalOf(err);
      return sendPage(web, req, reply, { title: 'Credentials', status: refusal.status, body: listBody(req, await listPage(req), refusal) });
    }
  });

  app.get<{ Params: { clientId: string } }>('/dashboard/credentials/:clientId', memberPage, async (req, reply) =>
    sendPage(web, req, reply, { title: 'Credential', body: detailBody(req, await credentialOf(req)) }),
  );

  app.post<{ Params: { clientId: string } }>('/dashboard/credentials/:clientId/rotate', rightPage('credentials'), async (req, reply) => {
    try {
      reply.code(200); // the answer when it commits (its audit entry records it)
      const rotated = await ctx.db.tx((tx) => credentials.rotateWorkspaceCredential(tx, ctx.box, actingAccount(req), req.params.clientId, graceSecondsOf(req)));
      const body = html`${secretOnce('The new client secret.', rotated.clientSecret)}
<p>The previous secret ${Date.parse(rotated.previousSecretExpiresAt) > Date.now() ? html`keeps working until ${when(rotated.previousSecretExpiresAt)}, then stops` : 'has stopped working'}.
Tokens already issued stay valid until they expire; revoke the credential to end them.</p>
<p>${link(detailPath(rotated.clientId), 'This credential')} · ${link('/dashboard/credentials', 'All credentials')}</p>`;
      return sendPage(web, req, reply, { title: 'Secret rotated', body });
    } catch (err) {
      const refusal = refusalOf(err);
      return sendPage(web, req, reply, { title: 'Credential', status: refusal.status, body: detailBody(req, await credentialOf(req), refusal) });
    }
  });

  app.post<{ Params: { clientId: string } }>('/dashboard/credentials/:clientId/scopes', rightPage('credentials'), async (req, reply) => {
    try {
      const scopes = chosenScopes(req);
      // A workspace admin holds every scope of the workspace, so may grant or remove any.
      await ctx.db.tx((tx) => credentials.updateScopes(tx, workspaceOf(req), req.params.clientId, scopes, { scopes: ALL_SCOPES }));
    } catch (err) {
      const refusal = refusalOf(err);
      return sendPage(web, req, reply, { title: 'Credential', status: refusal.status, body: detailBody(req, await credentialOf(req), refusal) });
    }
    return seeOther(reply, detailPath(req.params.clientId));
  });

  app.post<{ Params: { clientId: string } }>('/dashboard/credentials/:clientId/revoke', rightPage('credentials'), async (req, reply) => {
    await ctx.db.tx((tx) => credentials.revokeWorkspaceCredential(tx, actingAccount(req), req.params.clientId));
    return seeOther(reply, detailPath(req.params.clientId));
  });
}
