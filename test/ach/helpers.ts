import type { SftpServer } from '../helpers/sftp-server.js';

/** The "ach" section pointing at a real OpenSSH SFTP server. */
export function achSection(server: SftpServer, overrides: Record<string, unknown> = {}) {
  return {
    sftp: { host: server.host, port: server.port, username: server.username, privateKeyFile: server.privateKeyFile, hostKeySha256: `SHA256:${server.hostKeySha256}`, inbox: server.inbox, outbox: server.outbox },
    odfi: { routingNumber: '121042882', name: 'MY BANK' },
    originator: { name: 'CORRIDOR', companyId: '1234567890' },
    calendar: { timeZone: 'America/New_York', sameDayCutoffs: ['10:30', '14:45'], nextDayCutoff: '20:00' },
    cutoff: { maxPayouts: 5000, maxSeconds: 1 },
    ...overrides,
  };
}

export const US_PERSON = (accountNumber = '123456789') => ({
  type: 'individual',
  name: 'Grace Hopper',
  country: 'US',
  accounts: [{ type: 'bank_account', currency: 'USD', country: 'US', data: { accountNumber, routingNumber: '021000021' } }],
});


/** A line of a BAI2 account: a 16 record (type code, amount in cents, bank and customer references, text). */
export interface Bai2Line {
  type: string;
  cents: bigint;
  bankRef: string;
  customerRef: string;
  text: string;
}

/** A one-account BAI2 prior-day report as an ODFI sends it, its trailers' totals and record counts computed. */
export function bai2Statement(s: { accountNumber: string; asOf: string; openingCents: bigint; closingCents: bigint; lines: readonly Bai2Line[] }): string {
  const yymmdd = s.asOf.slice(2).replace(/-/g, '');
  const account = [`03,${s.accountNumber},USD,010,${s.openingCents},,,015,${s.closingCents},,/`, ...s.lines.map((l) => `16,${l.type},${l.cents},0,${l.bankRef},${l.customerRef},${l.text}/`)];
  const total = s.openingCents + s.closingCents + s.lines.reduce((sum, l) => sum + l.cents, 0n);
  return [
    `01,121042882,CORRIDOR,${yymmdd},0630,ST${yymmdd},80,1,2/`,
    `02,CORRIDOR,121042882,1,${yymmdd},2400,USD,2/`,
    ...account,
    `49,${total},${account.length + 1}/`,
    `98,${total},1,${account.length + 3}/`,
    `99,${total},1,${account.length + 5}/`,
  ].join('\n');
}
