import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestPki {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** Host names the receiver's certificate is valid for (`rebind.test` plays a DNS-rebinding name). */
export const TEST_CERT_NAMES = ['localhost', 'rebind.test'];

/**
 * A throwaway certificate authority and a server certificate it signed (localhost, rebind.test,
 * 127.0.0.1, ::1), written to `dir` with the openssl command line. Valid two days.
 */
export function generateTestPki(dir: string): TestPki {
  fs.mkdirSync(dir, { recursive: true });
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=Corridor test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
  const san = [...TEST_CERT_NAMES.map((n) => `DNS:${n}`), 'IP:127.0.0.1', 'IP:::1'].join(',');
  fs.writeFileSync(file('server.ext'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('server.pem'), '-days', '2', '-extfile', file('server.ext'));
  return { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
}
