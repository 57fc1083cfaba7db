import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as users from '../../domains/users/users.service.js';
import { OPERATOR_RIGHTS, OPERATOR_ROLES, RIGHT_WORDS, ROLE_WORDS, WORKSPACE_RIGHTS, WORKSPACE_ROLES, operatorRoleMay, workspaceRoleMay, type OperatorRole, type WorkspaceRole } from '../../domains/users/rights.js';
import { field, notice, postForm, secretOnce, section, select, status, table, when, pageNav, pagePosition, pageRequest, type PagePosition } from './components.js';
import { formText, refusalOf, type Refusal } from './forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import type { Area } from './layout.js';
import { sendPage, seeOther, type Web, type WebRouteConfig } from './web.js';

type UserPage = { data: users.UserView[]; nextCursor: string | null; total?: number; at: PagePosition };
type UserRequest = FastifyRequest<{ Params: { userId: string } }>;

const EMAIL_LENGTH_MAX = 320;
/** The roles a face's users may have, in words (src/domains/users/rights.ts). */
export function roleOptions(area: Area): { value: string; label: string }[] {
  return area === 'console'
    ? OPERATOR_ROLES.map((r) => ({ value: r, label: ROLE_WORDS[`operator:${r}`] }))
    : WORKSPACE_ROLES.map((r) => ({ value: r, label: ROLE_WORDS[`workspace:${r}`] }));
}

/** A row's form to give a user another role: the roles in a list, the current one chosen. */
export function roleForm(o: { area: Area; action: string; csrf: string; user: { id: string; email: string; role: string } }): Html {
  const id = `role-${o.user.id}`;
  return postForm(
    { action: o.action, csrf: o.csrf, submit: 'Change role', label: `Change the role of ${o.user.email}`, inline: true },
    html`<label for="${id}" class="visually-hidden">Role of ${o.user.email}</label><select id="${id}" name="role">${roleOptions(o.area).map(
      (r) => html`<option value="${r.value}"${r.value === o.user.role ? html` selected` : ''}>${r.value}</option>`,
    )}</select>`,
  );
}

const noRefusal: Refusal = { status: 200, message: '', fields: {} };

/**
 * The people of one face: a workspace's dashboard users or, in the console, the operator users,
 * each with a role (who may change them: rights.ts). One page module serves both.
 */
interface Face {
  area: Area;
  /** The list's path: /dashboard/users or /console/operators. */
  base: string;
  title: string;
  caption: string;
  /** Whose users: the signed-in user's workspace, or null for the operator's own. */
  owner: (req: FastifyRequest) => users.UserOwner;
  /** Whether the signed-in person may change them (their pages show forms). */
  canChange: (req: FastifyRequest) => boolean;
  /** Who manages them, as the users service checks it. */
  manager: (req: FastifyRequest) => users.UserManager;
  readPage: PageRoute;
  changePage: PageRoute;
}

type PageRoute = { schema: { hide: true }; config: { web: WebRouteConfig } };

const DASHBOARD: Face = {
  area: 'dashboard',
  base: '/dashboard/users',
  title: 'Users',
  caption: 'The people who sign in to this workspace dashboard',
  owner: (req) => {
    // A dashboard session is always a workspace's user; null would name the operator's users.
    const workspaceId = signedIn(req).workspaceId;
    if (workspaceId === null) throw new Error('a dashboard page with an operator user');
    return workspaceId;
  },
  canChange: (req) => workspaceRoleMay(signedIn(req).role as WorkspaceRole, 'workspace'),
  manager: (req) => ({ workspaceRole: signedIn(req).role as WorkspaceRole }),
  readPage: { schema: { hide: true }, config: { web: { area: 'dashboard' } } },
  changePage: { schema: { hide: true }, config: { web: { area: 'dashboard', right: 'workspace' } } },
};

const CONSOLE: Face = {
  area: 'console',
  base: '/console/operators',
  title: 'Operators',
  caption: 'The people who sign in to this console with their own email (beside the operator key)',
  owner: () => null,
  canChange: (req) => operatorRoleMay(operatorRoleOf(req), 'workspaces'),
  manager: (req) => ({ operator: operatorRoleOf(req) }),
  readPage: { schema: { hide: true }, config: { web: { area: 'console' } } },
  changePage: { schema: { hide: true }, config: { web: { area: 'console', right: 'workspaces' } } },
};

function signedIn(req: FastifyRequest) {
  const user = req.web.session?.user;
  if (!user) throw new Error('a users page without a signed-in user');
  return user;
}

/** The console's signed-in operator user's role, or undefined for a session opened with the operator key (every right). */
function operatorRoleOf(req: FastifyRequest): OperatorRole | undefined {
  return req.web.session?.user?.role as OperatorRole | undefined;
}

/** What may be done to another user: a new link while invited, role and disable while active, enable when disabled. */
function rowActions(face: Face, req: FastifyRequest, user: users.UserView): Html | string {
  if (user.id === req.web.session?.user?.id) return html`<span class="muted">you</span>`;
  const userPath = (id: string): string => `${face.base}/${encodeURIComponent(id)}`;
  const csrf = req.web.csrf;
  if (user.status === 'invited') return postForm({ action: `${userPath(user.id)}/invitation`, csrf, submit: 'New invitation link', label: `New invitation link for ${user.email}`, inline: true });
  if (user.status === 'disabled') return postForm({ action: `${userPath(user.id)}/enable`, csrf, submit: 'Enable', label: `Enable ${user.email}`, inline: true });
  return html`${roleForm({ area: face.area, action: `${userPath(user.id)}/role`, csrf, user })}${postForm({ action: `${userPath(user.id)}/disable`, csrf, submit: 'Disable', label: `Disable ${user.email}`, inline: true, danger: true, confirm: `Disable ${user.email}? Their sessions end at once.` })}`;
}

function inviteForm(face: Face, req: FastifyRequest, refusal: Refusal): Html {
  // Filled in again only when the invitation was refused (after a success the form is empty again).
  const posted = refusal !== noRefusal && req.url === face.base;
  return section(
    face.area === 'console' ? 'Invite an operator' : 'Invite a user',
    html`<p class="help">You get a single-use link to hand to the person (there is no mail server); it is shown once.</p>`,
    postForm(
      { action: face.base, csrf: req.web.csrf, submit: 'Invite' },
      field({ label: 'Email', name: 'email', type: 'email', required: true, value: posted ? formText(req, 'email', { maxLength: EMAIL_LENGTH_MAX }) : undefined, error: refusal.fields.email }),
      select({ label: 'Role', name: 'role', options: roleOptions(face.area), value: posted ? formText(req, 'role') : face.area === 'console' ? 'administrator' : 'viewer' }),
    ),
  );
}

function listBody(face: Face, req: FastifyRequest, page: UserPage, top: Html | '' = '', refusal = noRefusal): Html {
  const admin = face.canChange(req);
  return html`${top}${refusal.message ? notice('error', refusal.message) : ''}${section(
    face.title,
    table(
      face.caption,
      [
        { label: 'Email', cell: (u) => u.email },
        { label: 'Role', cell: (u) => u.role },
        { label: 'Status', cell: (u) => status(u.status) },
        { label: 'Two-step sign-in', cell: (u) => (u.twoFactor ? 'on' : 'off') },
        { label: 'Invitation expires', cell: (u) => (u.status === 'invited' ? when(u.invitationExpiresAt) : '') },
        { label: 'Added', cell: (u) => when(u.createdAt) },
        ...(admin ? [{ label: 'Actions', cell: (u: users.UserView) => rowActions(face, req, u) }] : []),
      ],
      page.data,
    ),
    pageNav(face.base, {}, page.at, page),
    face.area === 'dashboard' ? html`<p class="help">People can also sign in through your company's identity provider: <a href="/dashboard/users/company-sign-in">Company sign-in</a>.</p>` : '',
  )}${rightsList(face.area)}${admin ? inviteForm(face, req, refusal) : ''}`;
}

/** What each role may change, from the one table the services check (every role reads everything). */
function rightsList(area: Area): Html {
  const rights: [string, readonly string[]][] = area === 'console' ? Object.entries(OPERATOR_RIGHTS) : Object.entries(WORKSPACE_RIGHTS);
  const mayOf = (role: string) => rights.filter(([, holders]) => holders.includes(role)).map(([right]) => RIGHT_WORDS[right as keyof typeof RIGHT_WORDS]);
  return section(
    'What each role may do',
    html`<p class="help">Every role reads everything; a role changes only what is listed here.</p><ul class="rights">${roleOptions(area).map((r) => {
      const may = mayOf(r.value);
      return html`<li><strong>${r.value}</strong>: ${may.length ? `may ${may.join('; ')}` : 'reads only'}</li>`;
    })}</ul>`,
  );
}

const invitationShown = (invitation: users.Invitation): Html =>
  secretOnce(`The invitation link for ${invitation.user.email} (${invitation.user.role}).`, invitation.invitationUrl);

/**
 * A face's users: invite (link shown once), renew a link, change a role, disable or
 * enable. The dashboard's workspace users at /dashboard/users; the console's operator users at /console/operators.
 */
export function userPages(app: FastifyInstance, web: Web, area: Area): void {
  const face = area === 'console' ? CONSOLE : DASHBOARD;
  const { ctx } = web;
  const invitationOptions = users.invitationOptions(ctx.config);
  const listPage = async (req: FastifyRequest): Promise<UserPage> => {
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    return { ...(await users.listUsers(ctx.db, ctx.box, face.owner(req), pageRequest(at))), at };
  };
  const change = (req: UserRequest, to: { role?: string; status?: 'active' | 'disabled' }) =>
    ctx.db.tx((tx) => users.changeUser(tx, ctx.box, face.owner(req), { userId: req.web.session?.user?.id, manager: face.manager(req) }, req.params.userId, to));
  const refused = async (req: FastifyRequest, reply: Parameters<typeof seeOther>[0], err: unknown) => {
    const refusal = refusalOf(err);
    return sendPage(web, req, reply, { title: face.title, status: refusal.status, body: listBody(face, req, await listPage(req), '', refusal) });
  };

  app.get(face.base, face.readPage, async (req, reply) => sendPage(web, req, reply, { title: face.title, body: listBody(face, req, await listPage(req)) }));

  app.post(face.base, face.changePage, async (req, reply) => {
    try {
      const input = { email: formText(req, 'email', { maxLength: EMAIL_LENGTH_MAX }), role: formText(req, 'role', { maxLength: 20 }) || undefined };
      reply.code(201); // the answer when it commits (its audit entry records it)
      const invitation = await ctx.db.tx((tx) => users.inviteUser(tx, ctx.box, invitationOptions, face.owner(req), input, { seesEveryOwner: face.area === 'console', manager: face.manager(req) }));
      return sendPage(web, req, reply, { title: face.title, status: 201, body: listBody(face, req, await listPage(req), invitationShown(invitation)) });
    } catch (err) {
      return refused(req, reply, err);
    }
  });

  app.post<{ Params: { userId: string } }>(`${face.base}/:userId/invitation`, face.changePage, async (req, reply) => {
    try {
      const invitation = await users.reinviteUser(ctx.db, ctx.box, invitationOptions, face.owner(req), req.params.userId, face.manager(req));
      return sendPage(web, req, reply, { title: face.title, body: listBody(face, req, await listPage(req), invitationShown(invitation)) });
    } catch (err) {
      return refused(req, reply, err);
    }
  });

  const changes = {
    role: (req: UserRequest) => ({ role: formText(req, 'role', { maxLength: 20 }) }),
    disable: () => ({ status: 'disabled' as const }),
    enable: () => ({ status: 'active' as const }),
  };
  for (const [action, changeOf] of Object.entries(changes)) {
    app.post<{ Params: { userId: string } }>(`${face.base}/:userId/${action}`, face.changePage, async (req, reply) => {
      try {
        await change(req, changeOf(req));
      } catch (err) {
        return refused(req, reply, err);
      }
      return seeOther(reply, face.base);
    });
  }
}
