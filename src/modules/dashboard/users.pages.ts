import type { FastifyInstance, FastifyRequest } from 'fastify';
import { field, notice, pager, postForm, secretOnce, section, select, status, table, when } from '../../web/components.js';
import { formText, queryText } from '../../web/forms.js';
import { html, type Html } from '../../web/html.js';
import { sendPage, seeOther, type Web } from '../../web/web.js';
import * as users from '../users/users.service.js';
import { adminPage, canChange, dashboardUser, memberPage, refusalOf, type Refusal } from './caller.js';

type UserPage = { data: users.UserView[]; nextCursor: string | null };
type UserRequest = FastifyRequest<{ Params: { userId: string } }>;

const LIST_PAGE_SIZE = 50;
const EMAIL_LENGTH_MAX = 320;
const ROLE_OPTIONS = [
  { value: 'viewer', label: 'Viewer: reads only' },
  { value: 'admin', label: 'Admin: credentials, webhooks and users too' },
];

const noRefusal: Refusal = { status: 200, message: '', fields: {} };
const userPath = (id: string): string => `/dashboard/users/${encodeURIComponent(id)}`;

/** What an admin may do to another user: a new link while invited, role and disable while active, enable when disabled. */
function rowActions(req: FastifyRequest, user: users.UserView): Html | string {
  if (user.id === dashboardUser(req).id) return html`<span class="muted">you</span>`;
  const csrf = req.web.csrf;
  if (user.status === 'invited') return postForm({ action: `${userPath(user.id)}/invitation`, csrf, submit: 'New invitation link', label: `New invitation link for ${user.email}`, inline: true });
  if (user.status === 'disabled') return postForm({ action: `${userPath(user.id)}/enable`, csrf, submit: 'Enable', label: `Enable ${user.email}`, inline: true });
  const otherRole = user.role === 'admin' ? 'viewer' : 'admin';
  return html`${postForm(
    { action: `${userPath(user.id)}/role`, csrf, submit: `Make ${otherRole}`, label: `Make ${user.email} ${otherRole}`, inline: true },
    html`<input type="hidden" name="role" value="${otherRole}">`,
  )}${postForm({ action: `${userPath(user.id)}/disable`, csrf, submit: 'Disable', label: `Disable ${user.email}`, inline: true, danger: true, confirm: `Disable ${user.email}? Their sessions end at once.` })}`;
}

function inviteForm(req: FastifyRequest, refusal: Refusal): Html {
  // Filled in again only when the invitation was refused (after a success the form is empty again).
  const posted = refusal !== noRefusal && req.url === '/dashboard/users';
  return section(
    'Invite a user',
    html`<p class="help">You get a single-use link to hand to the person (there is no mail server); it is shown once.</p>`,
    postForm(
      { action: '/dashboard/users', csrf: req.web.csrf, submit: 'Invite' },
      field({ label: 'Email', name: 'email', type: 'email', required: true, value: posted ? formText(req, 'email', { maxLength: EMAIL_LENGTH_MAX }) : undefined, error: refusal.fields.email }),
      select({ label: 'Role', name: 'role', options: ROLE_OPTIONS, value: posted ? formText(req, 'role') : 'viewer' }),
    ),
  );
}

function listBody(req: FastifyRequest, page: UserPage, top: Html | '' = '', refusal = noRefusal): Html {
  const admin = canChange(req);
  return html`${top}${refusal.message ? notice('error', refusal.message) : ''}${section(
    'Users',
    table(
      'The people who sign in to this workspace dashboard',
      [
        { label: 'Email', cell: (u) => u.email },
        { label: 'Role', cell: (u) => u.role },
        { label: 'Status', cell: (u) => status(u.status) },
        { label: 'Two-step sign-in', cell: (u) => (u.twoFactor ? 'on' : 'off') },
        { label: 'Invitation expires', cell: (u) => (u.status === 'invited' ? when(u.invitationExpiresAt) : '') },
        { label: 'Added', cell: (u) => when(u.createdAt) },
        ...(admin ? [{ label: 'Actions', cell: (u: users.UserView) => rowActions(req, u) }] : []),
      ],
      page.data,
    ),
    pager('/dashboard/users', {}, page.nextCursor),
  )}${admin ? inviteForm(req, refusal) : ''}`;
}

const invitationShown = (invitation: users.Invitation): Html =>
  secretOnce(`The invitation link for ${invitation.user.email} (${invitation.user.role}).`, invitation.invitationUrl);

/** The workspace's dashboard users; an admin invites (link shown once), renews a link, changes a role, disables or enables. */
export function userPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  const invitationOptions = users.invitationOptions(ctx.config);
  const workspaceOf = (req: FastifyRequest) => dashboardUser(req).workspaceId;
  const listPage = (req: FastifyRequest) => users.listUsers(ctx.db, ctx.box, workspaceOf(req), { cursor: queryText(req, 'cursor'), limit: LIST_PAGE_SIZE });
  const change = (req: UserRequest, to: { role?: users.UserRole; status?: 'active' | 'disabled' }) =>
    ctx.db.tx((tx) => users.changeUser(tx, ctx.box, workspaceOf(req), dashboardUser(req).id, req.params.userId, to));
  const refused = async (req: FastifyRequest, reply: Parameters<typeof seeOther>[0], err: unknown) => {
    const refusal = refusalOf(err);
    return sendPage(web, req, reply, { title: 'Users', status: refusal.status, body: listBody(req, await listPage(req), '', refusal) });
  };

  app.get('/dashboard/users', memberPage, async (req, reply) => sendPage(web, req, reply, { title: 'Users', body: listBody(req, await listPage(req)) }));

  app.post('/dashboard/users', adminPage, async (req, reply) => {
    try {
      const input = { email: formText(req, 'email', { maxLength: EMAIL_LENGTH_MAX }), role: formText(req, 'role') as users.UserRole };
      const invitation = await ctx.db.tx((tx) => users.inviteUser(tx, ctx.box, invitationOptions, workspaceOf(req), input));
      return sendPage(web, req, reply, { title: 'Users', status: 201, body: listBody(req, await listPage(req), invitationShown(invitation)) });
    } catch (err) {
      return refused(req, reply, err);
    }
  });

  app.post<{ Params: { userId: string } }>('/dashboard/users/:userId/invitation', adminPage, async (req, reply) => {
    try {
      const invitation = await users.reinviteUser(ctx.db, ctx.box, invitationOptions, workspaceOf(req), req.params.userId);
      return sendPage(web, req, reply, { title: 'Users', body: listBody(req, await listPage(req), invitationShown(invitation)) });
    } catch (err) {
      return refused(req, reply, err);
    }
  });

  const changes = {
    role: (req: UserRequest) => ({ role: formText(req, 'role') as users.UserRole }),
    disable: () => ({ status: 'disabled' as const }),
    enable: () => ({ status: 'active' as const }),
  };
  for (const [action, changeOf] of Object.entries(changes)) {
    app.post<{ Params: { userId: string } }>(`/dashboard/users/:userId/${action}`, adminPage, async (req, reply) => {
      try {
        await change(req, changeOf(req));
      } catch (err) {
        return refused(req, reply, err);
      }
      return seeOther(reply, '/dashboard/users');
    });
  }
}
