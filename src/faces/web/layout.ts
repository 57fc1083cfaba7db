import type { WebSession } from '../../domains/users/sessions.service.js';
import { html, type Html } from '../../platform/lib/html.js';

export type Area = 'dashboard' | 'console';

interface NavItem {
  href: string;
  label: string;
  sandboxOnly?: boolean;
}

const NAV: Record<Area, readonly NavItem[]> = {
  dashboard: [
    { href: '/dashboard', label: 'Overview' },
    { href: '/dashboard/accounts', label: 'Accounts' },
    { href: '/dashboard/payouts', label: 'Payouts' },
    { href: '/dashboard/approvals', label: 'Approvals' },
    { href: '/dashboard/beneficiaries', label: 'Beneficiaries' },
    { href: '/dashboard/orders', label: 'Orders' },
    { href: '/dashboard/receiving', label: 'Receiving' },
    { href: '/dashboard/onboarding', label: 'Onboarding' },
    { href: '/dashboard/events', label: 'Events' },
    { href: '/dashboard/webhooks', label: 'Webhooks' },
    { href: '/dashboard/request-logs', label: 'Request logs' },
    { href: '/dashboard/credentials', label: 'Credentials' },
    { href: '/dashboard/users', label: 'Users' },
    { href: '/dashboard/sandbox', label: 'Sandbox', sandboxOnly: true },
  ],
  console: [
    { href: '/console', label: 'Workspaces' },
    { href: '/console/payouts', label: 'Payouts' },
    { href: '/console/screening', label: 'Screening' },
    { href: '/console/orders', label: 'Orders' },
    { href: '/console/applications', label: 'Applications' },
    { href: '/console/virtual-accounts', label: 'Virtual accounts' },
    { href: '/console/deposits', label: 'Deposits' },
    { href: '/console/connectors', label: 'Connectors' },
    { href: '/console/bank', label: 'Bank files' },
    { href: '/console/ach', label: 'ACH' },
    { href: '/console/fedwire', label: 'Fedwire' },
    { href: '/console/chain', label: 'Chain' },
    { href: '/console/reconciliation', label: 'Reconciliation' },
    { href: '/console/alerts', label: 'Alerts' },
    { href: '/console/operators', label: 'Operators' },
    { href: '/console/audit', label: 'Audit log' },
  ],
};

export interface PageFrame {
  area: Area;
  title: string;
  body: Html;
  /** The current path, to mark the current section in the navigation. */
  path: string;
  session: WebSession | undefined;
  csrf: string;
  sandbox: boolean;
}

function isCurrent(itemHref: string, path: string, area: Area): boolean {
  const root = area === 'dashboard' ? '/dashboard' : '/console';
  if (itemHref === root) return path === root || (area === 'console' && path.startsWith('/console/workspaces'));
  return path === itemHref || path.startsWith(`${itemHref}/`);
}

function who(frame: PageFrame): Html {
  const s = frame.session;
  if (!s || s.secondFactorPending) return html``;
  const name = s.user ? html`${s.user.email} <span class="role">${s.user.role}</span>` : html`Operator`;
  // The dashboard acts on the master account or a chosen sub-account: always say which.
  const acting = frame.area === 'dashboard' ? html`<a href="/dashboard/accounts" class="acting">${s.actingAccount ? html`Sub-account: ${s.actingAccount.name}` : 'Master account'}</a>` : '';
  // One search box for payouts, beneficiaries and orders.
  const search = frame.area === 'dashboard'
    ? html`<form method="get" action="/dashboard/search" role="search" class="search"><label for="top-search" class="visually-hidden">Search payouts, beneficiaries and orders</label><input id="top-search" type="search" name="q" placeholder="Search: id, reference, name, amount"><button type="submit">Search</button></form>`
    : '';
  return html`${search}<div class="who">${acting}<span>${name}</span>
${s.user ? html`<a href="/${frame.area}/account">Security</a>` : ''}
<form method="post" action="/${frame.area}/sign-out" class="inline"><input type="hidden" name="_csrf" value="${frame.csrf}"><button type="submit" class="link">Sign out</button></form></div>`;
}

/** One page: header with the area's navigation, main content, no inline script or style. */
export function layout(frame: PageFrame): string {
  const signedIn = frame.session !== undefined && !frame.session.secondFactorPending;
  const items = NAV[frame.area].filter((item) => frame.sandbox || !item.sandboxOnly);
  const areaName = frame.area === 'dashboard' ? 'Dashboard' : 'Operator console';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Corridor ${areaName}</title>
<link rel="stylesheet" href="/assets/corridor.css">
<link rel="icon" href="/assets/logo.svg" type="image/svg+xml">
<script src="/assets/corridor.js" defer></script>
</head>
<body class="area-${frame.area}">
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/${frame.area}"><img src="/assets/logo.svg" alt="" width="28" height="28"> Corridor <span>${areaName}</span>${frame.sandbox ? html` <span class="env">sandbox</span>` : ''}</a>
  ${who(frame)}
</header>
<div class="frame">
${signedIn ? html`<details class="menu" open><summary>Menu</summary><nav class="side" aria-label="${areaName}"><ul>${items.map((item) => html`<li><a href="${item.href}"${isCurrent(item.href, frame.path, frame.area) ? html` aria-current="page"` : ''}>${item.label}</a></li>`)}</ul></nav></details>` : ''}
<main id="main" tabindex="-1">
<h1>${frame.title}</h1>
${frame.body}
</main>
</div>
</body>
</html>`.text;
}
