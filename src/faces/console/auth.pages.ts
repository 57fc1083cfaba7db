import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateOperatorKey } from '../../platform/http/auth.js';
import { AppError, asHttpRefusal } from '../../platform/http/errors.js';
import { field, notice, postForm } from '../web/components.js';
import { formText, safeNext } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { companySignInOffered, signInForm, signInPages } from '../web/sign-in.pages.js';
import { companySignInPages } from '../web/company-sign-in.pages.js';
import { sendPage, seeOther, startSession, type Web } from '../web/web.js';

const publicPage = { schema: { hide: true }, config: { web: { area: 'console' as const, access: 'public' as const } } };

/** The second way into the console, under the operator users' form: the operator key itself. */
function keyForm(req: FastifyRequest, next: string | undefined, error?: string): Html {
  return html`<div class="signin">${error ? notice('error', error) : ''}
<h2>Or with the operator key</h2>
<p>The key printed at first start, or set with <code>CORRIDOR_BOOTSTRAP_OPERATOR_KEY</code>.</p>
${postForm(
  { action: '/console/sign-in/key', csrf: req.web.csrf, submit: 'Sign in with the key' },
  html`<input type="hidden" name="next" value="${next ?? ''}">`,
  html`<input type="text" name="username" value="operator" autocomplete="username" hidden>`,
  field({ label: 'Operator key', name: 'operatorKey', type: 'password', required: true, autocomplete: 'current-password' }),
)}</div>`;
}

/**
 * The console opens for an operator user (email, password, optional second factor: the same pages
 * as the dashboard's, audited as `user:<id>`) or with an operator key (audited as `console`).
 */
export function consoleAuthPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  signInPages(app, web, 'console', keyForm);
  companySignInPages(app, web, 'console');

  // A refused key is answered at this path; reloading it goes back to the sign-in page.
  app.get('/console/sign-in/key', publicPage, async (_req, reply) => seeOther(reply, '/console/sign-in'));

  app.post('/console/sign-in/key', publicPage, async (req, reply) => {
    const next = safeNext(formText(req, 'next'), 'console');
    const addressKey = `console:address:${req.ip}`;
    try {
      // A right key is always accepted; wrong ones are counted per address, which past its failures gets 429.
      const legacyAllowed = async () => !(await web.signInFailures.isLimited(addressKey));
      const keyId = await authenticateOperatorKey(ctx, formText(req, 'operatorKey', { raw: true, maxLength: 200 }), legacyAllowed);
      if (!keyId) throw (await web.signInFailures.recordFailure(addressKey)) ?? new AppError({ status: 401, message: 'That operator key is not valid.' });
      await startSession(web, req, reply, { area: 'console', operatorKeyId: keyId });
      return seeOther(reply, next);
    } catch (err) {
      const refused = asHttpRefusal(err);
      if (!refused || (refused.status !== 401 && refused.status !== 429)) throw err;
      for (const [k, v] of Object.entries(refused.headers ?? {})) reply.header(k, v);
      const message = refused.status === 429 ? 'Too many attempts. Wait a few minutes and try again.' : refused.message;
      return sendPage(web, req, reply, { title: 'Operator console', status: refused.status, body: signInForm(req, 'console', { next, company: companySignInOffered(web, 'console') }, (r, n) => keyForm(r, n, message)) });
    }
  });
}
