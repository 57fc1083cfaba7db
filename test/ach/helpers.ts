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

