import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/http/errors.js';
import { fieldError } from '../../platform/lib/errors.js';
import { fileField, link, money, notice, postForm, section, status, table } from '../web/components.js';
import { attempt, formText, onceAsApi, refusalOf, type Refusal } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { formFile } from '../web/multipart.js';
import { sendPage, type Web } from '../web/web.js';
import type { Caller } from '../../domains/accounts/caller.js';
import { listPayouts } from '../../domains/payouts/payouts.read.js';
import { getBeneficiary, listBeneficiaries, matchingBeneficiary } from '../../domains/beneficiaries/beneficiaries.service.js';
import { balancesOf } from '../../domains/ledger/ledger.service.js';
import { formatAmount } from '../../platform/lib/money.js';
import { isUuid } from '../../platform/lib/ids.js';
import { csvLine } from '../../platform/lib/csv.js';
import {
  duplicateRefs,
  parsePayoutCsv,
  payoutBodyOfRow,
  payoutCsvDigest,
  payoutCsvRowKey,
  batchFunding,
  PAYOUT_CSV_ROWS_MAX,
  type BatchFunding,
  PAYOUT_CSV_TEMPLATE,
  type PayoutCsvRow,
} from '../../domains/payouts/payouts.csv.js';
import type { PayoutView } from '../../domains/payouts/payouts.service.js';
import { actingAccount, rightPage, dashboardCaller, memberPage } from './caller.js';
import { PagePayouts } from './payout-writer.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A row of the file with what became of it: the refusal of its check, or of its sending, or its payout. */
interface RowOutcome {
  row: PayoutCsvRow;
  error?: string;
  payout?: PayoutView;
  replayed?: boolean;
  /** The saved beneficiary the row's full beneficiary matched (paid instead of saving the person again). */
  matched?: { id: string; name: string };
}

/** A row as the body of POST /v1/payouts, and the saved beneficiary it pays when it describes one already saved. */
interface RowBody {
  /** The row as the file says it: what its Idempotency-Key is compared with, so a file sent again replays whatever was matched. */
  raw: Record<string, unknown>;
  body: Record<string, unknown>;
  matched?: { id: string; name: string };
}

/**
 * A row that describes a beneficiary in full pays the saved beneficiary of the same name and account
 * (see matchingBeneficiary) instead of saving the person again. The row's key is compared with the
 * row as written (`raw`), so a file sent again answers the payouts made, matched or not.
 */
async function rowBody(web: Web, caller: Caller, row: PayoutCsvRow): Promise<RowBody> {
  const raw = payoutBodyOfRow(row);
  const v = row.values;
  if (v.beneficiaryId || !v.beneficiaryName || !v.currency) return { raw, body: raw };
  const data = (raw.beneficiary as { accounts: { data: Record<string, unknown> }[] }).accounts[0]?.data ?? {};
  const found = await matchingBeneficiary(web.ctx.db, web.ctx.box, caller, { name: v.beneficiaryName, currency: v.currency, data });
  if (!found) return { raw, body: raw };
  return { raw, body: payoutBodyOfRow({ ...row, values: { ...v, beneficiaryId: found.id } }), matched: { id: found.id, name: found.name } };
}

/** The file as the pages carry it between the check and the send (base64: a form would rewrite its line breaks, and so its digest). */
const fileOf = (req: FastifyRequest): Buffer => {
  const text = formText(req, 'file64', { maxLength: 8 * 1024 * 1024 });
  if (!/^[A-Za-z0-9+/=]+$/.test(text)) throw fieldError('file', 'The checked file did not come back whole: upload it again');
  return Buffer.from(text, 'base64');
};

function errorText(err: unknown): string {
  const refused = refusalOf(err);
  const fields = Object.entries(refused.fields).map(([k, v]) => (v.startsWith(k) ? v : `${k}: ${v}`));
  return fields.length ? fields.join('; ') : refused.message;
}

/** Every row checked as POST /v1/payouts would check it (schema, the service's checks), and clientRefs unique in the file. */
async function checkRows(web: Web, payouts: PagePayouts, caller: Caller, rows: readonly PayoutCsvRow[]): Promise<RowOutcome[]> {
  const duplicates = duplicateRefs(rows);
  const out: RowOutcome[] = [];
  for (const row of rows) {
    const duplicate = duplicates.get(row.line);
    if (duplicate) {
      out.push({ row, error: duplicate });
      continue;
    }
    const { body, matched } = await rowBody(web, caller, row);
    try {
      await payouts.check(caller, body);
      out.push({ row, ...(matched ? { matched } : {}) });
    } catch (err) {
      out.push({ row, error: errorText(err), ...(matched ? { matched } : {}) });
    }
  }
  return out;
}

function rowsTable(caption: string, outcomes: readonly RowOutcome[], names: ReadonlyMap<string, string> = new Map()): Html {
  return table(caption, [
    { label: 'Line', numeric: true, cell: (o: RowOutcome) => String(o.row.line) },
    { label: 'Client reference', cell: (o) => (o.payout ? link(`/dashboard/payouts/${o.payout.id}`, o.row.values.clientRef ?? '') : (o.row.values.clientRef ?? '')) },
    { label: 'Amount', numeric: true, cell: (o) => money(o.row.values.amount, o.row.values.currency?.toUpperCase()) },
    { label: 'Beneficiary', cell: (o) => beneficiaryCell(o, names) },
    { label: 'Result', cell: (o) => (o.error ? html`<span class="error">${o.error}</span>` : o.payout ? html`${status(o.payout.status)}${o.replayed ? html` <span class="muted">(already sent)</span>` : ''}` : html`<span class="muted">ready</span>`) },
  ], outcomes);
}

/** Who a row pays: a saved beneficiary (named, linked), the saved one its details matched, or a new one the file saves. */
function beneficiaryCell(o: RowOutcome, names: ReadonlyMap<string, string>): Html | string {
  const v = o.row.values;
  if (o.matched) return html`${link(`/dashboard/beneficiaries/${o.matched.id}`, o.matched.name)} <span class="muted">(saved: same name and account)</span>`;
  if (v.beneficiaryId) return names.has(v.beneficiaryId) ? html`${link(`/dashboard/beneficiaries/${v.beneficiaryId}`, names.get(v.beneficiaryId) ?? '')} <span class="muted">(saved)</span>` : v.beneficiaryId;
  return v.beneficiaryName ? html`${v.beneficiaryName} <span class="muted">(new: saved with the payout)</span>` : '';
}

/** The names of the saved beneficiaries the rows pay, by id (a row names a saved one by id only). */
async function savedNames(web: Web, caller: Caller, rows: readonly PayoutCsvRow[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const id of new Set(rows.map((r) => r.values.beneficiaryId).filter((v): v is string => Boolean(v && isUuid(v))))) {
    const found = await attempt(() => getBeneficiary(web.ctx.db, web.ctx.box, caller.workspaceId, id, { subAccountId: caller.subAccountId }));
    if ('done' in found) names.set(id, found.done.name);
  }
  return names;
}

/** The file's totals per currency against the balances now, of the rows not sent yet (a file sent again counts only what is left). */
async function fundingOf(web: Web, req: FastifyRequest, caller: Caller, all: readonly PayoutCsvRow[]): Promise<BatchFunding[]> {
  const rows: PayoutCsvRow[] = [];
  for (const row of all) if (!row.values.clientRef || !(await listPayouts(web.ctx.db, actingAccount(req), { clientRef: row.values.clientRef, limit: 1 })).data[0]) rows.push(row);
  const available = new Map((await balancesOf(web.ctx.db, caller.accountId)).map((b) => [b.currency, b.availableMinor]));
  return batchFunding(rows, (c) => caller.workspace.terms.payoutFeeMinor(c), (c) => available.get(c) ?? 0n);
}

const short = (funding: readonly BatchFunding[]) => funding.filter((f) => f.afterMinor < 0n);

function fundingTable(funding: readonly BatchFunding[]): Html {
  return table('Totals per currency, and the balance after the file', [
    { label: 'Currency', cell: (f: BatchFunding) => f.currency },
    { label: 'Payouts', numeric: true, cell: (f) => String(f.payouts) },
    { label: 'Amounts', numeric: true, cell: (f) => money(formatAmount(f.amountMinor, f.currency), f.currency) },
    { label: 'Fees', numeric: true, cell: (f) => money(formatAmount(f.feeMinor, f.currency), f.currency) },
    { label: 'Debited', numeric: true, cell: (f) => money(formatAmount(f.debitMinor, f.currency), f.currency) },
    { label: 'Balance now', numeric: true, cell: (f) => money(formatAmount(f.availableMinor, f.currency), f.currency) },
    { label: 'Balance after', numeric: true, cell: (f) => (f.afterMinor < 0n ? html`<span class="error">${formatAmount(f.afterMinor, f.currency)} ${f.currency} (short)</span>` : money(formatAmount(f.afterMinor, f.currency), f.currency)) },
  ], funding);
}

const shortNotice = (funding: readonly BatchFunding[]) =>
  notice('error', `The balance cannot cover the file: ${short(funding).map((f) => `${formatAmount(-f.afterMinor, f.currency)} ${f.currency} short`).join(', ')}. Nothing was sent. Add funds or split the file, then upload it again.`);

function uploadForm(req: FastifyRequest, refusal?: Refusal): Html {
  return section(
    'Upload a file',
    html`<p>One payout per line, at most ${PAYOUT_CSV_ROWS_MAX}. Start from the ${link('/dashboard/payouts/import/template.csv', 'template (CSV)')}: <code>beneficiaryId</code> pays a saved beneficiary; otherwise the beneficiary columns describe one, and a saved beneficiary of the same name and account is paid rather than saved again. The whole file is checked before anything is sent, and a file sent again pays nobody twice.</p>
<p>To pay people you have saved: ${link('/dashboard/payouts/import/saved.csv', 'your saved beneficiaries as a file (CSV)')}, one line each; fill in the amounts, delete the lines you do not pay, and upload it.</p>`,
    postForm(
      { action: '/dashboard/payouts/import', csrf: req.web.csrf, submit: 'Check the file', files: true },
      fileField({ label: 'Payouts file (CSV)', name: 'file', accept: '.csv,text/csv', required: true, error: refusal?.fields.file }),
    ),
  );
}

/** Bulk payouts from a CSV: template, check of the whole file with each row's errors, sending through the one pipeline, results as CSV. */
export function payoutImportPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  const payouts = new PagePayouts(ctx);

  const page = (req: FastifyRequest, reply: FastifyReply, body: Html, statusCode?: number) => sendPage(web, req, reply, { title: 'Send payouts from a file', body, status: statusCode });

  app.get('/dashboard/payouts/import', rightPage('pay'), async (req, reply) => page(req, reply, uploadForm(req)));

  app.get('/dashboard/payouts/import/template.csv', memberPage, async (_req, reply) =>
    reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="payouts-template.csv"').send(PAYOUT_CSV_TEMPLATE),
  );

  // A saved-recipient batch: every active beneficiary of the account in view as a line of the file (its first account's currency), amounts left to fill in.
  app.get('/dashboard/payouts/import/saved.csv', memberPage, async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    let out = csvLine(['clientRef', 'amount', 'currency', 'beneficiaryId', 'beneficiaryName', 'reference']);
    let cursor: string | undefined;
    let lines = 0;
    do {
      const page = await listBeneficiaries(ctx.db, ctx.box, caller, { status: 'active', limit: 100, cursor });
      for (const b of page.data) {
        if (lines >= PAYOUT_CSV_ROWS_MAX) break;
        out += csvLine([`pay-${day}-${b.id.slice(0, 8)}`, '', b.accounts[0]?.currency ?? '', b.id, b.name, '']);
        lines++;
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor && lines < PAYOUT_CSV_ROWS_MAX);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="payouts-saved-beneficiaries.csv"').send(out);
  });

  app.post('/dashboard/payouts/import', rightPage('pay'), async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const parsed = await attempt(async () => {
      const bytes = formFile(req, 'file', 'a CSV file of payouts').bytes;
      return { bytes, rows: parsePayoutCsv(bytes) };
    });
    if ('refused' in parsed) return page(req, reply, html`${notice('error', parsed.refused.message)}${uploadForm(req, parsed.refused)}`, parsed.refused.status);
    const outcomes = await checkRows(web, payouts, caller, parsed.done.rows);
    const failing = outcomes.filter((o) => o.error).length;
    if (failing > 0) {
      const body = html`${notice('error', `${failing} of ${outcomes.length} rows need fixing; nothing was sent. Fix them in the file and upload it again.`)}
${table('Rows that need fixing', [{ label: 'Line', numeric: true, cell: (o: RowOutcome) => String(o.row.line) }, { label: 'Client reference', cell: (o) => o.row.values.clientRef ?? '' }, { label: 'Error', cell: (o) => html`<span class="error">${o.error}</span>` }], outcomes.filter((o) => o.error))}
${uploadForm(req)}
${section('Every row', rowsTable('Every row of the file and its check', outcomes))}`;
      return page(req, reply, body, 400);
    }
    const funding = await fundingOf(web, req, caller, parsed.done.rows);
    const names = await savedNames(web, caller, parsed.done.rows);
    if (short(funding).length > 0) return page(req, reply, html`${shortNotice(funding)}${section('Totals', fundingTable(funding))}${uploadForm(req)}${section('Every row', rowsTable('Every row of the file', outcomes, names))}`, 409);
    const body = html`${notice('success', `All ${outcomes.length} rows passed the checks. Nothing is sent until you confirm.`)}
${section('Totals', fundingTable(funding))}
${postForm(
  { action: '/dashboard/payouts/import/send', csrf: req.web.csrf, submit: `Send ${outcomes.length} payouts`, id: 'send-payouts', progress: `Sending ${outcomes.length} payouts…` },
  html`<input type="hidden" name="file64" value="${parsed.done.bytes.toString('base64')}">`,
)}
${rowsTable('The payouts to send', outcomes, names)}`;
    return page(req, reply, body);
  });

  // Each row as POST /v1/payouts with its derived Idempotency-Key: a row already sent (this file
  // before, a double click, the CLI) answers its payout again and pays nobody twice.
  app.post('/dashboard/payouts/import/send', rightPage('pay'), async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const bytes = fileOf(req);
    const digest = payoutCsvDigest(bytes);
    const rows = parsePayoutCsv(bytes);
    // Funded whole or not sent at all: the balance is checked again (it may have moved since the check).
    const funding = await fundingOf(web, req, caller, rows);
    if (short(funding).length > 0) return page(req, reply, html`${shortNotice(funding)}${section('Totals', fundingTable(funding))}${uploadForm(req)}`, 409);
    const outcomes: RowOutcome[] = [];
    for (const row of rows) {
      const { raw, body, matched } = await rowBody(web, caller, row);
      try {
        const { answer, replayed } = await onceAsApi(
          ctx,
          { workspaceId: caller.workspaceId, subAccountId: caller.subAccountId, key: payoutCsvRowKey(digest, row.line), path: '/v1/payouts', bodyText: JSON.stringify(raw) },
          async (tx) => ({ status: 201, contentType: JSON_TYPE, text: JSON.stringify(await payouts.create(tx, caller, body)) }),
        );
        if (answer.status !== 201) outcomes.push({ row, error: (JSON.parse(answer.text) as { message?: string }).message ?? `refused (${answer.status})` });
        else outcomes.push({ row, payout: JSON.parse(answer.text) as PayoutView, replayed, ...(matched ? { matched } : {}) });
      } catch (err) {
        if (err instanceof AppError && err.status >= 500) throw err;
        outcomes.push({ row, error: errorText(err) });
      }
    }
    const sent = outcomes.filter((o) => o.payout && !o.replayed).length;
    const already = outcomes.filter((o) => o.replayed).length;
    const failed = outcomes.filter((o) => o.error).length;
    const body = html`${notice(failed ? 'error' : 'success', `${sent} payouts sent${already ? `, ${already} already sent before (not sent again)` : ''}${failed ? `, ${failed} refused` : ''}, of ${outcomes.length}.`)}
<p><progress max="${outcomes.length}" value="${outcomes.length - failed}" aria-label="Payouts of the file sent">${outcomes.length - failed} of ${outcomes.length}</progress></p>
${postForm({ action: '/dashboard/payouts/import/results.csv', csrf: req.web.csrf, submit: 'Download the results (CSV)', download: true }, html`<input type="hidden" name="file64" value="${bytes.toString('base64')}">`)}
${rowsTable('The payouts of the file', outcomes, await savedNames(web, caller, rows))}
<p>${link('/dashboard/payouts', 'All payouts')}</p>`;
    return page(req, reply, body);
  });

  // The results read back by client reference (reading only: nothing is sent again).
  app.post('/dashboard/payouts/import/results.csv', memberPage, async (req, reply) => {
    const rows = parsePayoutCsv(fileOf(req));
    let out = csvLine(['line', 'clientRef', 'payoutId', 'status', 'amount', 'currency', 'fee', 'feeCurrency', 'failureReason']);
    for (const row of rows) {
      const found = row.values.clientRef ? (await listPayouts(ctx.db, actingAccount(req), { clientRef: row.values.clientRef, limit: 1 })).data[0] : undefined;
      out += csvLine([row.line, row.values.clientRef, found?.id, found?.status ?? 'not sent', found?.amount, found?.currency, found?.fee, found?.feeCurrency, found?.failureReason]);
    }
    // 200 said outright: a page's POST is answered 303 unless its handler says otherwise (src/faces/web/web.ts), and a 303 with no Location downloads nothing.
    return reply.code(200).type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="payouts-results.csv"').send(out);
  });
}
