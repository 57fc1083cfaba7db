import { FORM_KEY_FIELD } from '../../platform/http/idempotency.js';
import { randomSecret } from '../../platform/lib/secrets.js';
import { html, join, type Html } from '../../platform/lib/html.js';

/** The pieces every page is built from: forms, tables, lists, amounts, states, pagination. */

export interface FieldOptions {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'date' | 'datetime-local' | 'url' | 'search';
  value?: string | undefined;
  required?: boolean;
  help?: string;
  autocomplete?: string;
  inputmode?: 'numeric' | 'decimal' | 'text';
  pattern?: string;
  error?: string | undefined;
}

let fieldCounter = 0;
const fieldId = (name: string): string => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}-${(fieldCounter = (fieldCounter + 1) % 1_000_000)}`;

export function field(o: FieldOptions): Html {
  const id = fieldId(o.name);
  const describedBy = [o.help ? `${id}-help` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${o.error ? ' has-error' : ''}">
  <label for="${id}"${o.required ? html` class="required"` : ''}>${o.label}</label>
  <input id="${id}" name="${o.name}" type="${o.type ?? 'text'}"${o.value !== undefined ? html` value="${o.value}"` : ''}${o.required ? html` required` : ''}${
    o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''
  }${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.pattern ? html` pattern="${o.pattern}"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${
    o.error ? html` aria-invalid="true"` : ''
  }>
  ${o.help ? html`<p class="help" id="${id}-help">${o.help}</p>` : ''}
  ${o.error ? html`<p class="error" id="${id}-error">${o.error}</p>` : ''}
</div>`;
}

/** A file input (the form needs `files: true`): `accept` lists the types taken, such as "application/pdf,image/png". */
export function fileField(o: { label: string; name: string; accept?: string; required?: boolean; help?: string; error?: string | undefined }): Html {
  const id = fieldId(o.name);
  const describedBy = [o.help ? `${id}-help` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${o.error ? ' has-error' : ''}"><label for="${id}"${o.required ? html` class="required"` : ''}>${o.label}</label>
<input id="${id}" name="${o.name}" type="file"${o.accept ? html` accept="${o.accept}"` : ''}${o.required ? html` required` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${o.error ? html` aria-invalid="true"` : ''}>
${o.help ? html`<p class="help" id="${id}-help">${o.help}</p>` : ''}${o.error ? html`<p class="error" id="${id}-error">${o.error}</p>` : ''}</div>`;
}

export function textarea(o: { label: string; name: string; value?: string; required?: boolean; help?: string; rows?: number }): Html {
  const id = fieldId(o.name);
  return html`<div class="field"><label for="${id}">${o.label}</label>
<textarea id="${id}" name="${o.name}" rows="${o.rows ?? 4}"${o.required ? html` required` : ''}${o.help ? html` aria-describedby="${id}-help"` : ''}>${o.value ?? ''}</textarea>
${o.help ? html`<p class="help" id="${id}-help">${o.help}</p>` : ''}</div>`;
}

export function select(o: { label: string; name: string; options: readonly (string | { value: string; label: string })[]; value?: string | undefined; required?: boolean; help?: string }): Html {
  const id = fieldId(o.name);
  const options = o.options.map((opt) => (typeof opt === 'string' ? { value: opt, label: opt } : opt));
  return html`<div class="field"><label for="${id}">${o.label}</label>
<select id="${id}" name="${o.name}"${o.required ? html` required` : ''}>${options.map(
    (opt) => html`<option value="${opt.value}"${opt.value === o.value ? html` selected` : ''}>${opt.label}</option>`,
  )}</select>
${o.help ? html`<p class="help">${o.help}</p>` : ''}</div>`;
}

export function checkboxes(o: { legend: string; name: string; options: readonly string[]; checked: readonly string[]; error?: string | undefined }): Html {
  return html`<fieldset class="checks${o.error ? ' has-error' : ''}"><legend>${o.legend}</legend>${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}${o.options.map((opt) => {
    const id = fieldId(`${o.name}-${opt}`);
    return html`<div class="check"><input type="checkbox" id="${id}" name="${o.name}" value="${opt}"${o.checked.includes(opt) ? html` checked` : ''}><label for="${id}">${opt}</label></div>`;
  })}</fieldset>`;
}

/**
 * A button's accessible name when its visible text repeats (on every row of a table): it starts
 * with the visible text, so what a person sees is what voice control and screen readers use
 * ("Act on this account: Shop Berlin", not "Act on Shop Berlin").
 */
export function accessibleName(visible: string, label: string): string {
  return label.startsWith(visible) ? label : `${visible}: ${label}`;
}

/**
 * A form that changes something: POST, with the page's CSRF token. `confirm` asks before sending
 * (the page script reads data-confirm; without scripts the form still works). In the question,
 * `{name}` is the value of the form's field `name` as typed, or when it is empty
 * `confirmDefaults[name]` (what the change takes then), so the question says what will be done.
 */
export function postForm(
  o: {
    action: string;
    csrf: string;
    submit: string;
    danger?: boolean;
    confirm?: string;
    confirmDefaults?: Record<string, string>;
    inline?: boolean;
    id?: string;
    /** The button's accessible name where `submit` repeats on every row of a table ("Disable ada@…"). */ label?: string;
    /** The form carries a file (multipart/form-data, src/faces/web/multipart.ts). */ files?: boolean;
    /** Said with a progress bar while the answer is awaited (a long change, such as sending a file of payouts). */ progress?: string;
    /** The form downloads a file and changes nothing: the page script lets it be sent again (no one-submission guard). */ download?: boolean;
  },
  ...body: Html[]
): Html {
  return html`<form method="post" action="${o.action}" class="${o.inline ? 'inline' : 'stacked'}"${o.files ? html` enctype="multipart/form-data"` : ''}${o.progress ? html` data-progress="${o.progress}"` : ''}${o.download ? html` data-download` : ''}${o.confirm ? html` data-confirm="${o.confirm}"` : ''}${Object.entries(o.confirmDefaults ?? {}).map(([k, v]) => html` data-confirm-${k.toLowerCase().replace(/[^a-z0-9-]/g, '')}="${v}"`)}${o.id ? html` id="${o.id}"` : ''}>
<input type="hidden" name="_csrf" value="${o.csrf}">
<input type="hidden" name="${FORM_KEY_FIELD}" value="${randomSecret('form_', 18)}">
${body}
<button type="submit" class="${o.danger ? 'danger' : 'primary'}"${o.label ? html` aria-label="${accessibleName(o.submit, o.label)}"` : ''}>${o.submit}</button>
</form>`;
}

/** A GET form of list filters. */
export function filterForm(action: string, fields: Html[], submit = 'Filter'): Html {
  return html`<form method="get" action="${action}" class="filters" role="search">${fields}<button type="submit">${submit}</button> <a href="${action}">Clear</a></form>`;
}

export interface Column<T> {
  label: string;
  cell: (row: T) => Html | string;
  numeric?: boolean;
}

/**
 * The Account column of a list the master account's view mixes with its sub-accounts' rows ("master",
 * or "sub-account" with its id on hover); none when a sub-account is in view (every row is its own).
 */
export function accountColumn<T>(subAccountInView: string | undefined, accountOf: (row: T) => string | null | undefined): Column<T>[] {
  if (subAccountInView) return [];
  return [{ label: 'Account', cell: (row) => {
    const id = accountOf(row);
    return id ? html`<span title="${id}">sub-account</span>` : 'master';
  } }];
}

export function table<T>(caption: string, columns: readonly Column<T>[], rows: readonly T[], empty = 'Nothing here yet.'): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  const cells = rows.map((row) => columns.map((c) => c.cell(row)));
  // On a phone a list keeps its first three columns, its status and every column that acts (a form
  // or a button: Approve, Release, Resend, Mark paid...); the others (class "opt") give way.
  const acts = (i: number) => cells.some((row) => /<(form|button)\b/.test(String(row[i])));
  const classes = columns.map((c, i) => [c.numeric ? 'num' : '', i >= 3 && !/status|result|error/i.test(c.label) && !acts(i) ? 'opt' : ''].filter(Boolean).join(' '));
  const cls = (i: number) => (classes[i] ? html` class="${classes[i]}"` : '');
  // The wrap scrolls sideways when a table is wider than a phone: focusable, so a keyboard can scroll it too.
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table><caption>${caption}</caption>
<thead><tr>${columns.map((c, i) => html`<th scope="col"${cls(i)}>${c.label}</th>`)}</tr></thead>
<tbody>${cells.map((row) => html`<tr>${row.map((cell, i) => html`<td${cls(i)}>${cell}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** Upper-case words of the API's keys (an IBAN, a BIC...), as a person writes them. */
const ACRONYMS = new Set(['iban', 'bic', 'swift', 'uetr', 'id', 'ach', 'aba', 'vat', 'kyc', 'kyb', 'url', 'sepa', 'ifsc', 'clabe', 'bsb', 'pep']);

/** An API key in words for a label: `bankName` → "Bank name", `iban` → "IBAN", `registration_number` → "Registration number". */
export function words(key: string): string {
  const parts = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .split(/\s+/)
    .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w.toLowerCase()));
  const text = parts.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A value of the API's free-form objects for a person to read: an address on its lines, a nested
 * object as its own labelled list, a list joined, true/false as yes/no.
 */
export function readable(value: unknown): Html | string {
  if (value === null || value === undefined || value === '') return html`<span class="muted">—</span>`;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return join(value.flatMap((v: unknown, i) => (i === 0 ? [readable(v)] : [', ', readable(v)])));
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined && v !== '');
    return html`<dl class="nested">${entries.map(([k, v]) => html`<div><dt>${words(k)}</dt><dd>${readable(v)}</dd></div>`)}</dl>`;
  }
  return String(value);
}

/** Label and value pairs (a detail page's facts). */
export function facts(pairs: readonly (readonly [string, Html | string | null | undefined])[]): Html {
  return html`<dl class="facts">${pairs.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v ?? html`<span class="muted">—</span>`}</dd></div>`)}</dl>`;
}

/** An amount exactly as the API gives it (a decimal string) with its currency. */
export function money(amount: string | null | undefined, currency: string | null | undefined): Html {
  if (amount === null || amount === undefined) return html`<span class="muted">—</span>`;
  // The page script groups it in the reader's locale (the ISO code kept); the exact figure stays in data-amount.
  return html`<span class="money" data-amount="${amount}">${amount}&nbsp;${currency ?? ''}</span>`;
}

/** A time: UTC as written here, shown by the page script in the reader's time zone with UTC on hover. */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  const utc = iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  return html`<time datetime="${iso}" title="${utc.replace(/Z$/, ' UTC')}">${utc}</time>`;
}

/** A state in words with its code beside it, coloured by its family: the one mapping is codes.ts. */
export { status } from './codes.js';

export function notice(kind: 'info' | 'success' | 'error', text: string | Html): Html {
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}

/** A value to copy (an id, an IBAN, a reference, a URL): shown as code, with a copy button the page script wires up. */
export function copyable(value: string | null | undefined): Html {
  if (value === null || value === undefined || value === '') return html`<span class="muted">—</span>`;
  const id = fieldId('copy');
  return html`<span class="copyable"><code id="${id}">${value}</code> <button type="button" class="copy" data-copy="${id}" aria-label="Copy ${value}">Copy</button></span>`;
}

/**
 * A part of the page that follows something still moving (a webhook delivery being attempted):
 * while `moving`, the page script fetches the page again every few seconds and swaps this part in
 * (no inline script; without scripts, a reload shows the same). It stops once the part comes back settled.
 */
export function live(id: string, moving: boolean, body: Html): Html {
  return html`<div id="${id}" aria-live="polite"${moving ? html` data-live="1"` : ''}>${body}</div>`;
}

/** A secret shown once: selectable, with a copy button the page script wires up. */
export function secretOnce(label: string, value: string): Html {
  const id = fieldId('secret');
  return html`<div class="secret-once" role="status"><p><strong>${label}</strong> It is shown only now: copy it and keep it safe.</p>
<div class="secret-row"><code id="${id}" class="secret">${value}</code><button type="button" class="copy" data-copy="${id}">Copy</button></div></div>`;
}

/** The page sizes a list offers. */
export const PAGE_SIZES = ['20', '50', '100'] as const;
/** How many earlier pages' cursors ride in the address, for Previous (older ones are dropped). */
const BACK_CURSORS_MAX = 30;

export interface PagePosition {
  /** The list's page size. */
  limit: number;
  /** The cursor of this page (none: the first page). */
  cursor: string | undefined;
  /** The cursors of the pages before this one, oldest first ('' is the first page). */
  back: string[];
  /** The position of this page's first row (1-based). */
  from: number;
}

/** Where a list page is, from its address (limit, cursor, back, row: the first row's position). */
export function pagePosition(query: Record<string, unknown>): PagePosition {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
  const limit = Number(PAGE_SIZES.find((size) => size === text('limit')) ?? PAGE_SIZES[0]);
  const back = (text('back') ?? '').split('~').filter((c, i, all) => all.length > 1 || c !== '').slice(-BACK_CURSORS_MAX);
  const from = Math.max(1, Math.floor(Number(text('row') ?? '1')) || 1);
  const cursor = text('cursor');
  return { limit, cursor, back: cursor ? (back.length ? back : ['']) : [], from: cursor ? from : 1 };
}

const count = new Intl.NumberFormat('en-GB');

/** A list's page as the services answer it with `withTotal` (src/platform/db/pagination.ts). */
export interface ListPage {
  data: readonly unknown[];
  nextCursor: string | null;
  total?: number | undefined;
}

/** What a list page asks its service for: the page size, the cursor and the total ("1–20 of N"). */
export function pageRequest(at: PagePosition): { cursor: string | undefined; limit: number; withTotal: true } {
  return { cursor: at.cursor, limit: at.limit, withTotal: true };
}

/**
 * The one pager of every list: "21–40 of 1,043" with Previous and Next and the page size, keeping
 * the filters (keyset pages: Previous walks back the cursors seen). `query` is the list's filters.
 */
export function pageNav(path: string, query: Record<string, string | undefined>, at: PagePosition, page: ListPage): Html {
  const shown = page.data.length;
  const base = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '' && !['cursor', 'back', 'row', 'limit'].includes(k)) base.set(k, v);
  const withLimit = (params: URLSearchParams, limit: number) => {
    if (limit !== Number(PAGE_SIZES[0])) params.set('limit', String(limit));
    return params;
  };
  const address = (params: URLSearchParams) => {
    const q = params.toString();
    return q ? `${path}?${q}` : path;
  };
  const href = (cursor: string | undefined, back: string[], from: number) => {
    const params = withLimit(new URLSearchParams(base), at.limit);
    if (cursor) {
      params.set('cursor', cursor);
      params.set('back', back.join('~'));
      params.set('row', String(from));
    }
    return address(params);
  };
  const last = at.back[at.back.length - 1];
  const previous = at.cursor ? href(last || undefined, at.back.slice(0, -1), Math.max(1, at.from - at.limit)) : undefined;
  const next = page.nextCursor ? href(page.nextCursor, [...at.back, at.cursor ?? ''], at.from + shown) : undefined;
  const of = page.total === undefined ? '' : ` of ${count.format(page.total)}`;
  const range = shown === 0 ? `0${of || ' shown'}` : `${count.format(at.from)}–${count.format(at.from + shown - 1)}${of}`;
  // Another page size starts again from the first page.
  const sizes = PAGE_SIZES.map((size) =>
    Number(size) === at.limit ? html`<span aria-current="true">${size}</span>` : html`<a href="${address(withLimit(new URLSearchParams(base), Number(size)))}" aria-label="${size} rows per page">${size}</a>`,
  );
  return html`<nav class="pager" aria-label="Pages"><span class="range" role="status">${range}</span>
${previous ? html`<a href="${previous}" rel="prev">← Previous</a>` : html`<span class="muted">← Previous</span>`}
${next ? html`<a href="${next}" rel="next">Next →</a>` : html`<span class="muted">Next →</span>`}
<span class="sizes">Rows per page: ${join(sizes.flatMap((s, i) => (i === 0 ? [s] : [html` · `, s])))}</span></nav>`;
}

export function link(href: string, text: string | Html): Html {
  return html`<a href="${href}">${text}</a>`;
}

export function section(title: string, ...body: (Html | string)[]): Html {
  return html`<section><h2>${title}</h2>${join(body)}</section>`;
}

/**
 * A bar chart drawn on the server as SVG (no script, no style attribute: the CSP holds), with the
 * same figures as a table for screen readers and anyone who prefers numbers.
 */
export function barChart(o: { title: string; unit: string; points: readonly { label: string; value: number; shown: string }[] }): Html {
  const width = 560;
  const height = 140;
  const gap = 2;
  const max = Math.max(1, ...o.points.map((p) => p.value));
  const barWidth = Math.max(2, Math.floor(width / Math.max(1, o.points.length)) - gap);
  const id = fieldId('chart');
  const bars = o.points.map((p, i) => {
    // A negative value (an overdrawn day) draws no bar; its figure is in the table.
    const h = Math.max(0, Math.round((p.value / max) * (height - 20)));
    return html`<rect class="bar" x="${i * (barWidth + gap)}" y="${height - h}" width="${barWidth}" height="${h}"><title>${p.label}: ${p.shown}</title></rect>`;
  });
  return html`<figure class="chart"><figcaption id="${id}">${o.title}</figcaption>
<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}" preserveAspectRatio="none" class="chart-svg">${bars}</svg>
<details><summary>${o.title} as a table</summary>${table(o.title, [{ label: 'Day', cell: (p: { label: string; shown: string }) => p.label }, { label: o.unit, numeric: true, cell: (p) => p.shown }], o.points)}</details></figure>`;
}
