import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { fieldError } from '../../platform/lib/errors.js';
import { Uuid } from '../../platform/lib/schemas.js';
import { field, link, postForm, status, table, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import type { Tx } from '../../platform/db/db.js';
import { changeOnce, formCountry, formList, formOptional, formText } from '../web/forms.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import type { PayoutLimits, WorkspaceSettings } from '../../domains/accounts/workspace-terms.js';
import type { Capability } from '../../domains/auth/scopes.js';
import * as operator from '../../controls/operator/operator.service.js';
import { attempt, consoleChange, operatorActor, consolePage, consoleRoute, IdPath, refusalNotice, withDone, type Refusal } from './console.kit.js';
import { showWorkspace, type WorkspaceSection } from './workspace.view.js';

type Params = { Params: { id: string } };

/**
 * A change to a workspace's section, once per rendered form (changeOnce): 303 back to the section
 * when done, saying what was done (`done`, a code of console.kit's notices); the page again with the
 * refusal when not.
 */
export async function changeWorkspace(web: Web, req: FastifyRequest<Params>, reply: FastifyReply, section: WorkspaceSection, change: (tx: Tx) => Promise<unknown>, done: string = section): Promise<FastifyReply> {
  const back = withDone(`/console/workspaces/${req.params.id}#${section}`, done);
  const result = await attempt(() => changeOnce(web.ctx, req, async (tx) => (await change(tx), back)));
  if ('refused' in result) return showWorkspace(web, req, reply, req.params.id, { refused: { section, refusal: result.refused }, status: result.refused.status });
  return seeOther(reply, result.done);
}

/** `CURRENCY AMOUNT` lines as the settings' map; a line that is not that shape is refused naming the field. */
function amountLines(text: string, name: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const [code, amount, extra] = line.split(/\s+/);
    if (!code || !amount || extra !== undefined) throw fieldError(name, `${name}: each line is a currency and an amount, such as "EUR 1.50" (not "${line}")`);
    map[code.toUpperCase()] = amount;
  }
  return map;
}

function limitLines(text: string): Record<string, PayoutLimits> {
  const map: Record<string, PayoutLimits> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const [code, perTransaction, daily, extra] = line.split(/\s+/);
    if (!code || !perTransaction || !daily || extra !== undefined) throw fieldError('payoutLimits', `payoutLimits: each line is a currency, a per-transaction and a daily limit ("-" for none), not "${line}"`);
    map[code.toUpperCase()] = { ...(perTransaction !== '-' ? { perTransaction } : {}), ...(daily !== '-' ? { daily } : {}) };
  }
  return map;
}

/** The settings form as the settings the operator API takes (the same service validates them). */
function settingsFromForm(req: FastifyRequest): WorkspaceSettings {
  const flags = formList(req, 'flags');
  const identity = {
    companyName: formOptional(req, 'companyName', 200),
    registrationNumber: formOptional(req, 'registrationNumber', 100),
    country: formCountry(req, 'identityCountry'),
    address: formOptional(req, 'address', 200),
    city: formOptional(req, 'city', 100),
    postalCode: formOptional(req, 'postalCode', 20),
  };
  const given = Object.fromEntries(Object.entries(identity).filter((e): e is [string, string] => e[1] !== undefined));
  if (Object.keys(given).length && !given.companyName) throw fieldError('businessIdentity.companyName', 'businessIdentity needs a company name');
  const primaryCurrency = formOptional(req, 'primaryCurrency', 10)?.toUpperCase();
  if (primaryCurrency && !/^[A-Z]{3,10}$/.test(primaryCurrency)) throw fieldError('primaryCurrency', 'primaryCurrency must be a currency code such as EUR');
  return {
    travelRuleScreening: flags.includes('travelRuleScreening'),
    payoutsPermitted: flags.includes('payoutsPermitted'),
    ...(primaryCurrency ? { primaryCurrency } : {}),
    ...(given.companyName ? { businessIdentity: { ...given, companyName: given.companyName } } : {}),
    payoutFees: amountLines(formText(req, 'payoutFees'), 'payoutFees'),
    payoutLimits: limitLines(formText(req, 'payoutLimits')),
    depositFees: amountLines(formText(req, 'depositFees'), 'depositFees'),
  };
}

function createForm(req: FastifyRequest, refusal?: Refusal) {
  return html`<section id="create"><h2>Create a workspace</h2>${refusalNotice(refusal)}
${postForm(
  { action: '/console/workspaces', csrf: req.web.csrf, submit: 'Create workspace' },
  field({ label: 'Name', name: 'name', required: true, value: refusal ? formText(req, 'name') : undefined, error: refusal?.fields.name }),
  field({ label: 'Country', name: 'country', required: true, help: 'Two letters, such as GB', value: refusal ? formText(req, 'country') : undefined, error: refusal?.fields.country }),
)}</section>`;
}

async function listPage(web: Web, req: FastifyRequest, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const page = await operator.listWorkspaces(web.ctx.db, pageRequest(at));
  const body = html`${table(
    'Workspaces, newest first',
    [
      { label: 'Name', cell: (w) => link(`/console/workspaces/${w.id}`, w.name) },
      { label: 'Country', cell: (w) => w.country },
      { label: 'Status', cell: (w) => status(w.status) },
      { label: 'Currencies', cell: (w) => w.enabledCurrencies.join(', ') },
      { label: 'Created', cell: (w) => when(w.createdAt) },
    ],
    page.data,
    'No workspace yet.',
  )}${pageNav('/console', {}, at, page)}${createForm(req, refusal)}`;
  return sendPage(web, req, reply, { title: 'Workspaces', body, status: refusal?.status });
}

/** Workspaces: the list (the console's home), creation, and a workspace's page with its settings and balances. */
export function workspacePages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/console', consolePage, async (req, reply) => listPage(web, req, reply));

  app.post('/console/workspaces', consoleChange('workspaces'), async (req, reply) => {
    const input = () => ({ name: formText(req, 'name', { maxLength: 200 }), country: formCountry(req, 'country') ?? '' });
    const result = await attempt(() => changeOnce(ctx, req, async (tx) => withDone(`/console/workspaces/${(await operator.openWorkspace(tx, input(), operatorActor(req))).id}`, 'workspace-created')));
    if ('refused' in result) return listPage(web, req, reply, result.refused);
    return seeOther(reply, result.done);
  });

  app.get<Params>('/console/workspaces/:id', consoleRoute(IdPath), async (req, reply) => showWorkspace(web, req, reply, req.params.id));

  app.post<{ Params: { id: string } }>('/console/workspaces/:id/currencies', consoleRoute(IdPath, 'workspaces'), async (req, reply) =>
    changeWorkspace(web, req, reply, 'currencies', (tx) => operator.setCurrency(tx, req.params.id, formText(req, 'code', { maxLength: 10 }), formText(req, 'enabled') === 'true', ctx.config.env)),
  );

  app.post<{ Params: { id: string; name: string } }>('/console/workspaces/:id/capabilities/:name', consoleRoute(Type.Object({ id: Uuid, name: Type.String({ maxLength: 40 }) }), 'workspaces'), async (req, reply) => {
    const enabled = formText(req, 'enabled') === 'true';
    return changeWorkspace(web, req, reply, 'capabilities', (tx) => operator.setCapability(tx, req.params.id, req.params.name as Capability, enabled), enabled ? 'capability-on' : 'capability-off');
  });

  app.post<Params>('/console/workspaces/:id/settings', consoleRoute(IdPath, 'workspaces'), async (req, reply) =>
    changeWorkspace(web, req, reply, 'settings', async (tx) => operator.updateSettings(tx, req.params.id, settingsFromForm(req))),
  );

  app.post<Params>('/console/workspaces/:id/balances/adjust', consoleRoute(IdPath, 'credits'), async (req, reply) =>
    changeWorkspace(web, req, reply, 'balances', (tx) =>
      operator.adjustBalance(tx, req.params.id, { currency: formText(req, 'currency', { maxLength: 10 }), amount: formText(req, 'amount', { maxLength: 40 }), reason: formText(req, 'reason', { maxLength: 600 }) }, String(req.id), operatorActor(req)),
    ),
  );
}
