import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateOperatorKey } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { field, notice, postForm } from '../../web/components.js';
import { formText, queryText, safeNext } from '../../web/forms.js';
import { html, type Html } from '../../web/html.js';
import { endBrowserSession, sendPage, seeOther, startSession, type Web } from '../../web/web.js';

const publicPage = { schema: { hide: true }, config: { web: { area: 'console' as const, access: 'public' as const } } };

function keyForm(req: FastifyRequest, next: string | undefined, error?: string): Html {
  return html`<div class="signin">${error ? notice('error', error) : ''}
<p>Sign in with an operator key (printed at first start, or set with <code>CORRIDOR_OPERATOR_KEY</code>).</p>
${postForm(
  { action: '/console/sign-in', csrf: req.web.csrf, submit: 'Sign in' },
  html`<input type="hidden" name="next" value="${next ?? ''}">`,
  html`<input type="text" name="username" value="operator" autocomplete="username" hidden>`,
  field({ label: 'Operator key', name: 'operatorKey', type: 'password', required: true, autocomplete: 'current-password' }),
)}</div>`;
}

/** The console opens with an operator key; the session then carries the key's id (audited as `console`). */
export function consoleAuthPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/console/sign-in', publicPage, async (req, reply) => {
    if (req.web.session) return seeOther(reply, '/console');
    return sendPage(web, req, reply, { title: 'Operator console', body: keyForm(req, queryText(req, 'next')) });
  });

  app.post('/console/sign-in', publicPage, async (req, reply) => {
    const next = safeNext(formText(req, 'next'), 'console');
    const addressKey = `console:address:${req.ip}`;
    try {
      await web.signInFailures.check(addressKey);
      const keyId = await authenticateOperatorKey(ctx, formText(req, 'operatorKey', { raw: true, maxLength: 200 }));
      if (!keyId) {
        await web.signInFailures.recordFailure(addressKey);
        throw new AppError({ status: 401, message: 'That operator key is not valid.' });
      }
      await startSession(web, req, reply, { area: 'console', operatorKeyId: keyId });
      return seeOther(reply, next);
    } catch (err) {
      if (!(err instanceof AppError) || (err.status !== 401 && err.status !== 429)) throw err;
      for (const [k, v] of Object.entries(err.headers ?? {})) reply.header(k, v);
      const message = err.status === 429 ? 'Too many attempts. Wait a few minutes and try again.' : err.message;
      return sendPage(web, req, reply, { title: 'Operator console', status: err.status, body: keyForm(req, next, message) });
    }
  });

  app.post('/console/sign-out', publicPage, async (req, reply) => endBrowserSession(web, req, reply, 'console'));
}
