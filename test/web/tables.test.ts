import { describe, expect, it } from 'vitest';
import { postForm, table } from '../../src/faces/web/components.js';
import { html } from '../../src/platform/lib/html.js';

/** A list on a phone (issue 37, point 1): the columns that give way never include the ones that act. */

const rows = [{ id: 'p1', who: 'Ada', amount: '10.00', currency: 'EUR', created: 'today', note: 'n' }];
type Row = (typeof rows)[number];

describe('a table at phone width', () => {
  it('keeps a column whose cells hold a form or a button (Approve, Release, Resend...), as its first three and its status', () => {
    const out = String(
      table<Row>(
        'Payouts',
        [
          { label: 'Id', cell: (r) => r.id },
          { label: 'Who', cell: (r) => r.who },
          { label: 'Amount', cell: (r) => r.amount, numeric: true },
          { label: 'Created', cell: (r) => r.created },
          { label: 'Status', cell: () => 'held' },
          { label: 'Decide', cell: (r) => postForm({ action: `/dashboard/approvals/${r.id}/approve`, csrf: 'x', submit: 'Approve', inline: true }, html``) },
          { label: 'Resend', cell: () => html`<button type="submit">Send again</button>` },
          { label: 'Note', cell: (r) => r.note },
        ],
        rows,
      ),
    );
    const headers = [...out.matchAll(/<th scope="col"( class="([^"]*)")?>([^<]+)<\/th>/g)].map((m) => ({ label: m[3], cls: m[2] ?? '' }));
    const hidden = headers.filter((h) => h.cls.split(' ').includes('opt')).map((h) => h.label);
    expect(hidden).toEqual(['Created', 'Note']);
    // The cells follow their header.
    expect(out).toMatch(/<td class="opt">today<\/td>/);
    expect(out).toMatch(/<td><form[^>]*action="\/dashboard\/approvals\/p1\/approve"/);
  });
});
