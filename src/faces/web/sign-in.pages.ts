import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, asHttpRefusal } from '../../platform/http/errors.js';
import { fieldError } from '../../platform/lib/errors.js';
import { totpUri } from '../../platform/lib/totp.js';
import * as users from '../../domains/users/users.service.js';
import { field, notice, postForm, facts } from './components.js';
import { formErrors, formText, queryText, safeNext } from './forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import type { Area } from './layout.js';
import { endBrowserSession, sendPage, seeOther, startSession, type Web } from './web.js';

const page = { schema: { hide: true } };
const INVITATION_TOKEN = /^inv_[A-Za-z0-9_-]{43}$/;
const GENERIC_SIGN_IN_FAILURE = 'Email or password is incorrect, or the account cannot sign in.';

function invitationCookieName(secure: boolean): string {
  return `${secure ? '__Secure-' : ''}corridor_invitation`;
}

/** What a sign-in page shows under the email and password form (the console's operator-key form). */
export type SignInExtra = (req: FastifyRequest, next: string | undefined, error?: string) => Html;

/** The sign-in form of a face, with what the face adds below it. */
export function signInForm(req: FastifyRequest, area: Area, options: { next?: string | undefined; email?: string; error?: string; company?: boolean }, extra?: SignInExtra): Html {
  return html`<div class="signin">
${options.error ? notice('error', options.error) : ''}
${postForm(
  { action: `/${area}/sign-in`, csrf: req.web.csrf, submit: 'Sign in' },
  html`<input type="hidden" name="next" value="${options.next ?? ''}">`,
  field({ label: 'Email', name: 'email', type: 'email', value: options.email, required: true, autocomplete: 'username' }),
  field({ label: 'Password', name: 'password', type: 'password', required: true, autocomplete: 'current-password' }),
)}
<p class="help">No account yet? Ask ${area === 'console' ? 'another operator' : 'your operator'} for an invitation link.</p>
</div>${options.company ? companySignInLink(area, options.next) : ''}${extra ? extra(req, options.next) : ''}`;
}

/** "Sign in with your company" (src/faces/web/company-sign-in.pages.ts) under a sign-in form: the dashboard's asks for the email first; the console's leaves at once. */
export function companySignInLink(area: Area, next: string | undefined): Html {
  const query = next ? `?next=${encodeURIComponent(next)}` : '';
  const href = area === 'dashboard' ? `/dashboard/sign-in/company${query}` : `/console/sign-in/company/start${query}`;
  return html`<div class="signin company-signin"><h2>Or through your company</h2>
<p>If your company's identity provider signs you in to Corridor, use it: no password or code here.</p>
<p><a class="button" href="${href}">Sign in with your company</a></p></div>`;
}

/** Whether a face's sign-in page offers "Sign in with your company". */
export function companySignInOffered(web: Web, area: Area): boolean {
  return area === 'dashboard' || web.ctx.config.web.consoleOidc !== undefined;
}

/** The attempts at a user's second factor (at sign-in and to turn it off), limited together. */
const secondFactorKey = (userId: string): string => `signin:second-factor:${userId}`;

/** A refused attempt: a rate limit says so (with Retry-After), anything else gets the one generic answer. */
function refusal(err: unknown): { status: number; message: string; headers: Record<string, string> } {
  const refused = asHttpRefusal(err);
  if (refused?.status === 429) return { status: 429, message: 'Too many attempts. Wait a few minutes and try again.', headers: refused.headers ?? {} };
  return { status: 401, message: GENERIC_SIGN_IN_FAILURE, headers: {} };
}

/**
 * A person's way in, the same for both faces: sign-in with email and password (limited per account
 * and address, one generic refusal), the TOTP second factor, sign-out, the invitation link, and
 * their security page. Workspace users sign in to /dashboard, operator users to /console.
 */
export function signInPages(app: FastifyInstance, web: Web, area: Area, extra?: SignInExtra): void {
  const { ctx } = web;
  const publicPage = { ...page, config: { web: { area, access: 'public' as const } } };
  const title = area === 'console' ? 'Operator console' : 'Sign in';
  // Every workspace may have its company's provider; the console has one when CONSOLE_OIDC_ISSUER is set.
  const company = companySignInOffered(web, area);

  app.get(`/${area}/sign-in`, publicPage, async (req, reply) => {
    if (req.web.session && !req.web.session.secondFactorPending) return seeOther(reply, `/${area}`);
    return sendPage(web, req, reply, { title, body: signInForm(req, area, { next: queryText(req, 'next'), company }, extra) });
  });

  app.post(`/${area}/sign-in`, publicPage, async (req, reply) => {
    const email = formText(req, 'email', { maxLength: 320 });
    const next = safeNext(formText(req, 'next'), area);
    const accountKey = `signin:account:${ctx.box.hmac('sign-in-account', email.toLowerCase()).toString('base64url')}`;
    const addressKey = `signin:address:${req.ip}`;
    try {
      // The attempt is counted before the password is checked (concurrent attempts cannot all pass); a success gives it back.
      const release = await web.signInFailures.reserve([addressKey, accountKey]);
      const user = await users.checkPassword(ctx.db, ctx.box, area, email, formText(req, 'password', { raw: true, maxLength: users.PASSWORD_LENGTH_MAX }));
      if (!user) throw new AppError({ status: 401, message: GENERIC_SIGN_IN_FAILURE });
      await release();
      const secondFactorPending = user.totp_secret_encrypted !== null;
      await startSession(web, req, reply, { area, userId: user.id, secondFactorPending });
      return seeOther(reply, secondFactorPending ? `/${area}/second-factor?next=${encodeURIComponent(next)}` : next);
    } catch (err) {
      const { status, message, headers } = refusal(err);
      for (const [k, v] of Object.entries(headers)) reply.header(k, v);
      return sendPage(web, req, reply, { title, status, body: signInForm(req, area, { next, email, error: message, company }, extra) });
    }
  });

  const secondFactorPage = { ...page, config: { web: { area, access: 'second-factor' as const } } };
  const codeForm = (req: FastifyRequest, error?: string) =>
    html`<div class="signin">${error ? notice('error', error) : ''}
<p>Enter the 6-digit code from your authenticator app.</p>
${postForm(
  { action: `/${area}/second-factor`, csrf: req.web.csrf, submit: 'Continue' },
  html`<input type="hidden" name="next" value="${queryText(req, 'next') ?? formText(req, 'next')}">`,
  field({ label: 'Code', name: 'code', required: true, autocomplete: 'one-time-code', inputmode: 'numeric', pattern: '[0-9 ]{6,7}' }),
)}</div>`;

  app.get(`/${area}/second-factor`, secondFactorPage, async (req, reply) => sendPage(web, req, reply, { title: 'Two-step sign-in', body: codeForm(req) }));

  app.post(`/${area}/second-factor`, secondFactorPage, async (req, reply) => {
    const user = req.web.session?.user as NonNullable<NonNullable<typeof req.web.session>['user']>;
    try {
      const release = await web.signInFailures.reserve([secondFactorKey(user.id)]);
      if (!(await users.checkSecondFactor(ctx.db, ctx.box, user.id, formText(req, 'code', { maxLength: 20 })))) {
        throw new AppError({ status: 401, message: 'That code is not right, or was already used.' });
      }
      await release();
    } catch (err) {
      const { status, headers } = refusal(err);
      for (const [k, v] of Object.entries(headers)) reply.header(k, v);
      const message = status === 429 ? 'Too many attempts. Wait a few minutes and try again.' : 'That code is not right, or was already used.';
      return sendPage(web, req, reply, { title: 'Two-step sign-in', status, body: codeForm(req, message) });
    }
    await startSession(web, req, reply, { area, userId: user.id, secondFactorPending: false });
    return seeOther(reply, safeNext(formText(req, 'next'), area));
  });

  app.post(`/${area}/sign-out`, publicPage, async (req, reply) => endBrowserSession(web, req, reply, area));

  // The invitation link's token moves into a cookie scoped to this page, and the address bar,
  // history and any Referer lose it; the token is single-use and expires (DASHBOARD_INVITATION_TTL_MS).
  // An invitation opens only on its own face: an operator user's link on /console, a workspace user's on /dashboard.
  const invitationPath = `/${area}/invitation`;
  const openInvitation = async (token: string | undefined) => {
    const invited = token ? await users.findInvitation(ctx.db, ctx.box, token) : undefined;
    if (!invited || users.areaOf(invited) !== area) throw new AppError({ status: 404, message: 'This invitation has expired or was already used. Ask your operator for a new link.' });
    return invited;
  };

  app.get(invitationPath, publicPage, async (req, reply) => {
    const fromLink = queryText(req, 'token');
    const cookieName = invitationCookieName(web.cookieSecure);
    if (fromLink !== undefined) {
      if (!INVITATION_TOKEN.test(fromLink)) throw new AppError({ status: 404, message: 'This invitation link is not valid.' });
      reply.setCookie(cookieName, fromLink, { httpOnly: true, sameSite: 'lax', secure: web.cookieSecure, path: invitationPath, maxAge: 3600 });
      return seeOther(reply, invitationPath);
    }
    const invited = await openInvitation(req.cookies[cookieName]);
    return sendPage(web, req, reply, { title: 'Accept your invitation', body: invitationForm(req, area, invited) });
  });

  app.post(invitationPath, publicPage, async (req, reply) => {
    const cookieName = invitationCookieName(web.cookieSecure);
    const token = req.cookies[cookieName] ?? '';
    const invited = await openInvitation(token);
    try {
      const user = await users.acceptInvitation(ctx.db, ctx.box, token, formText(req, 'password', { raw: true, maxLength: 1000 }), formText(req, 'confirmation', { raw: true, maxLength: 1000 }));
      reply.clearCookie(cookieName, { httpOnly: true, sameSite: 'lax', secure: web.cookieSecure, path: invitationPath });
      await startSession(web, req, reply, { area, userId: user.id, secondFactorPending: false });
      return seeOther(reply, `/${area}`);
    } catch (err) {
      const errors = formErrors(err);
      if (!errors) throw err;
      return sendPage(web, req, reply, { title: 'Accept your invitation', status: 400, body: invitationForm(req, area, invited, errors.fields) });
    }
  });

  accountPages(app, web, area);
}

function invitationForm(req: FastifyRequest, area: Area, invited: users.UserView, errors: Record<string, string> = {}): Html {
  return html`<div class="signin">
${facts([
  ['Email', invited.email],
  ['Role', invited.role],
])}
<p>Choose a password of at least ${users.PASSWORD_LENGTH_MIN} characters that is not easy to guess (not a common password, a repeat or a keyboard row). A passphrase of a few unrelated words is good.</p>
${postForm(
  { action: `/${area}/invitation`, csrf: req.web.csrf, submit: 'Set password and sign in' },
  html`<input type="text" name="username" value="${invited.email}" autocomplete="username" hidden>`,
  field({ label: 'Password', name: 'password', type: 'password', required: true, autocomplete: 'new-password', error: errors.password }),
  field({ label: 'Password again', name: 'confirmation', type: 'password', required: true, autocomplete: 'new-password', error: errors.confirmation }),
)}</div>`;
}

/**
 * The security page of a console session opened with the operator key: there is no person, so no
 * password or second factor to set; operator users (invited from the Operators page) have them.
 */
const keyOnlyBody = html`<section><h2>Signed in with the operator key</h2>
<p>This page holds the security settings of an operator user (email, password, two-step sign-in). You opened the console with the operator key, which is not a user and has none of these.</p>
<p>Invite yourself and your staff as operator users from <a href="/console/operators">Operators</a>, then sign in with email and password: the audit log then names the person behind each change.</p></section>`;

/** Security settings of the signed-in user: the optional TOTP second factor. */
function accountPages(app: FastifyInstance, web: Web, area: Area): void {
  const { ctx } = web;
  const member = { ...page, config: { web: { area } } };
  // A console session opened with the operator key has no user: the page says so, and the changes are refused.
  const userOnly = {
    ...member,
    preHandler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (!req.web.session?.user) return sendPage(web, req, reply, { title: 'Security', status: 403, body: keyOnlyBody });
    },
  };
  const account = `/${area}/account`;
  const me = (req: FastifyRequest) => req.web.session?.user as NonNullable<NonNullable<typeof req.web.session>['user']>;

  const accountBody = (req: FastifyRequest, message?: Html) => {
    const user = me(req);
    return html`${message ?? ''}<section><h2>You</h2>${facts([
      ['Email', user.email],
      ['Role', user.role],
      ['Two-step sign-in', user.twoFactor ? 'On (authenticator app)' : 'Off'],
    ])}</section>
<section><h2>Two-step sign-in</h2>
${
  user.twoFactor
    ? postForm(
        { action: `${account}/second-factor/disable`, csrf: req.web.csrf, submit: 'Turn off two-step sign-in', danger: true },
        html`<input type="text" name="username" value="${user.email}" autocomplete="username" hidden>`,
        field({ label: 'Password', name: 'password', type: 'password', required: true, autocomplete: 'current-password' }),
        field({ label: 'Current code', name: 'code', required: true, autocomplete: 'one-time-code', inputmode: 'numeric' }),
      )
    : html`<p>Ask for a code from an authenticator app at every sign-in, beside your password.</p>${postForm({ action: `${account}/second-factor/begin`, csrf: req.web.csrf, submit: 'Set up two-step sign-in' })}`
}</section>`;
  };

  app.get(account, member, async (req, reply) =>
    sendPage(web, req, reply, req.web.session?.user ? { title: 'Security', body: accountBody(req) } : { title: 'Security', body: keyOnlyBody }),
  );

  // The new secret travels sealed in the form (encrypted, bound to this user) until a code confirms it.
  const enrolForm = (req: FastifyRequest, secret: string, error?: string) =>
    html`${error ? notice('error', error) : ''}<section><h2>Add Corridor to your authenticator app</h2>
<p>Enter this key in your app (time-based, 6 digits, 30 seconds), then type the code it shows.</p>
<p><code class="secret" id="totp-secret">${secret}</code></p>
<p class="help">Or, in apps that take a setup URI: <code>${totpUri(secret, 'Corridor', me(req).email)}</code></p>
${postForm(
  { action: `${account}/second-factor/enable`, csrf: req.web.csrf, submit: 'Turn on' },
  html`<input type="hidden" name="sealed" value="${ctx.box.encrypt(`${me(req).id}:${secret}`)}">`,
  field({ label: 'Code from the app', name: 'code', required: true, autocomplete: 'one-time-code', inputmode: 'numeric' }),
)}</section>`;

  app.post(`${account}/second-factor/begin`, userOnly, async (req, reply) =>
    sendPage(web, req, reply, { title: 'Two-step sign-in', body: enrolForm(req, users.newSecondFactor()) }),
  );

  app.post(`${account}/second-factor/enable`, userOnly, async (req, reply) => {
    let secret: string;
    try {
      const [userId, sealedSecret] = ctx.box.decrypt(formText(req, 'sealed', { maxLength: 500 })).split(':');
      if (userId !== me(req).id || !sealedSecret) throw new Error('sealed for another user');
      secret = sealedSecret;
    } catch {
      throw new AppError({ status: 400, message: 'The setup form was altered. Start again.' });
    }
    try {
      await ctx.db.tx((tx) => users.enableSecondFactor(tx, ctx.box, me(req).id, secret, formText(req, 'code', { maxLength: 20 }), { token: req.web.sessionToken as string }));
    } catch (err) {
      const errors = formErrors(err);
      if (!errors) throw err;
      return sendPage(web, req, reply, { title: 'Two-step sign-in', status: 400, body: enrolForm(req, secret, errors.message) });
    }
    return seeOther(reply, `${account}?done=second-factor-on`);
  });

  // Turning the factor off takes the password and a current code, under the second factor's limit.
  app.post(`${account}/second-factor/disable`, userOnly, async (req, reply) => {
    const user = me(req);
    try {
      const release = await web.signInFailures.reserve([secondFactorKey(user.id)]);
      const password = formText(req, 'password', { raw: true, maxLength: users.PASSWORD_LENGTH_MAX });
      if ((await users.checkPassword(ctx.db, ctx.box, area, user.email, password))?.id !== user.id) {
        throw fieldError('password', 'The password is not right.', 'PASSWORD_MISMATCH');
      }
      if (!(await users.checkSecondFactor(ctx.db, ctx.box, user.id, formText(req, 'code', { maxLength: 20 })))) {
        throw fieldError('code', 'That code is not right, or was already used.', 'CODE_MISMATCH');
      }
      await release();
    } catch (err) {
      const errors = formErrors(err);
      if (!errors) throw err;
      return sendPage(web, req, reply, { title: 'Security', status: 400, body: accountBody(req, notice('error', errors.message)) });
    }
    await users.disableSecondFactor(ctx.db, user.id);
    return seeOther(reply, account);
  });
}
