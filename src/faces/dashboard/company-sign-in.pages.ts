import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as company from '../../domains/users/company-sign-in.service.js';
import { html, type Html } from '../../platform/lib/html.js';
import { facts, field, notice, postForm, section, textarea } from '../web/components.js';
import { formText } from '../web/forms.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { canChange, dashboardUser, memberPage, refusalOf, rightPage, type Refusal } from './caller.js';

const PATH = '/dashboard/users/company-sign-in';
const noRefusal: Refusal = { status: 200, message: '', fields: {} };

/** The workspace's company identity provider (OpenID Connect): what it is, and for admins the form to set it. */
export function companySignInSettingsPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  const allowHttp = ctx.config.env !== 'production';
  const callback = `${ctx.config.publicBaseUrl}/dashboard/sign-in/company/callback`;

  const body = (req: FastifyRequest, current: company.ProviderView | undefined, refusal = noRefusal): Html => {
    const posted = req.method === 'POST' && refusal.message !== '';
    const value = (name: string, saved: string | undefined) => (posted ? formText(req, name) : saved);
    const about = section(
      'Sign-in with your company',
      html`<p>People of your company sign in to this dashboard through your identity provider (OpenID Connect), with no password or code here. Whoever has an email of your domain, verified by the provider, and a role from its claim is signed in; one new to Corridor gets a user at that role. Others keep signing in with their password.</p>
<p>Register Corridor at your provider as a confidential web client with this redirect URI: <code>${callback}</code></p>`,
      current
        ? facts([
            ['Issuer', current.issuer],
            ['Client id', current.clientId],
            ['Email domain', current.emailDomain],
            ['Role claim', current.roleClaim],
            ['Roles', company.roleMapText(current.roleMap)],
          ])
        : html`<p class="muted">Not set up.</p>`,
    );
    if (!canChange(req, 'workspace')) return about;
    return html`${about}${section(
      current ? 'Change' : 'Set up',
      refusal.message ? notice('error', refusal.message) : '',
      postForm(
        { action: PATH, csrf: req.web.csrf, submit: 'Save' },
        field({ label: 'Issuer URL', name: 'issuer', type: 'url', required: true, value: value('issuer', current?.issuer), error: refusal.fields.issuer, help: 'https, such as https://login.example.com/realms/acme' }),
        field({ label: 'Client id', name: 'clientId', required: true, value: value('clientId', current?.clientId), error: refusal.fields.clientId }),
        field({ label: 'Client secret', name: 'clientSecret', type: 'password', required: !current, autocomplete: 'off', error: refusal.fields.clientSecret, help: current ? 'Leave empty to keep the secret already set.' : 'Kept encrypted; never shown again.' }),
        field({ label: 'Email domain', name: 'emailDomain', required: true, value: value('emailDomain', current?.emailDomain), error: refusal.fields.emailDomain, help: 'Only emails of this domain sign in through the provider.' }),
        field({ label: 'Role claim', name: 'roleClaim', required: true, value: value('roleClaim', current?.roleClaim ?? 'groups'), error: refusal.fields.roleClaim, help: 'A dotted path reads a nested claim (realm_access.roles).' }),
        textarea({ label: 'Roles', name: 'roleMap', required: true, value: value('roleMap', current ? company.roleMapText(current.roleMap) : 'corridor-admins=admin\ncorridor-viewers=viewer'), help: 'value=role, one a line; the first value the person has wins. A person with none is refused.' }),
        refusal.fields.roleMap ? html`<p class="error">${refusal.fields.roleMap}</p>` : html``,
      ),
    )}${current ? section('Remove', postForm({ action: `${PATH}/remove`, csrf: req.web.csrf, submit: 'Remove company sign-in', danger: true })) : ''}`;
  };

  app.get(PATH, memberPage, async (req, reply) =>
    sendPage(web, req, reply, { title: 'Company sign-in', body: body(req, await company.workspaceProvider(ctx.db, dashboardUser(req).workspaceId)) }),
  );

  app.post(PATH, rightPage('workspace'), async (req, reply) => {
    const { workspaceId } = dashboardUser(req);
    try {
      await company.setWorkspaceProvider(
        ctx.db,
        ctx.box,
        workspaceId,
        {
          issuer: formText(req, 'issuer', { maxLength: 600 }),
          clientId: formText(req, 'clientId', { maxLength: 600 }),
          clientSecret: formText(req, 'clientSecret', { raw: true, maxLength: 2000 }),
          emailDomain: formText(req, 'emailDomain', { maxLength: 300 }),
          roleClaim: formText(req, 'roleClaim', { maxLength: 300 }),
          roleMap: formText(req, 'roleMap', { raw: true, maxLength: 5000 }),
        },
        allowHttp,
      );
    } catch (err) {
      const refusal = refusalOf(err);
      return sendPage(web, req, reply, { title: 'Company sign-in', status: refusal.status, body: body(req, await company.workspaceProvider(ctx.db, workspaceId), refusal) });
    }
    return seeOther(reply, PATH);
  });

  app.post(`${PATH}/remove`, rightPage('workspace'), async (req, reply) => {
    await company.removeWorkspaceProvider(ctx.db, dashboardUser(req).workspaceId);
    return seeOther(reply, PATH);
  });
}
