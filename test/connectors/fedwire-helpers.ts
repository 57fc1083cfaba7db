import type { SftpServer } from '../helpers/sftp-server.js';

/** The fedwire connector's test setup, shared by its own tests and the conformance suite. */

/** The operator's account at its US bank (the Fed's sample debtor). */
const ACCOUNT = { id: 'usd-wires', name: 'Corridor Payments Inc', accountNumber: '5647772655', routingNumber: '011104238', address: { street: 'Avenue A', buildingNumber: '66', postcode: '60532', town: 'Lisle', subdivision: 'IL', country: 'US' } };

export function fedwireSection(server: SftpServer, cutoff = { maxPayouts: 100, maxSeconds: 1 }) {
  return {
    sftp: { host: server.host, port: server.port, username: server.username, privateKeyFile: server.privateKeyFile, hostKeySha256: `SHA256:${server.hostKeySha256}`, inbox: server.inbox, outbox: server.outbox },
    account: ACCOUNT,
    cutoff,
    pollSeconds: 1,
  };
}

/** A US beneficiary (the Fed's sample creditor) at the bank with routing number 021040078. */
export const CORPORATION_B = {
  type: 'individual',
  name: 'Grace Brewster Hopper',
  country: 'US',
  address: '1 Desert View Street',
  city: 'Palm Springs',
  postcode: '92262',
  countrySubdivision: 'CA',
  accounts: [{ type: 'bank_account', currency: 'USD', data: { accountNumber: '567876543', routingNumber: '021040078' } }],
};
