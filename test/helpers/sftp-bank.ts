import fs from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import SftpClient from 'ssh2-sftp-client';
import type { SftpServer } from './sftp-server.js';

/*
 * The test side of the bank, over SFTP: it logs in to the bank's server (test/helpers/sftp-server.ts)
 * as the bank's own back office would, reads the pain.001 files Corridor wrote into the inbox, and
 * writes its answers (built with test/helpers/bank-answers.ts) into the outbox under a temporary name
 * then renamed, so Corridor never reads half an answer. Driven by the test; not part of the product.
 */

export interface Pain001Transaction {
  msgId: string;
  pmtInfId: string;
  debtorIban: string;
  endToEndId: string;
  amount: string;
  currency: string;
}

export interface Pain001File {
  name: string;
  msgId: string;
  transactions: Pain001Transaction[];
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, parseTagValue: false, isArray: (name) => name === 'PmtInf' || name === 'CdtTrfTxInf' });

type Node = Record<string, unknown>;
const child = (node: unknown, ...names: string[]): unknown => names.reduce<unknown>((n, name) => (n && typeof n === 'object' ? (n as Node)[name] : undefined), node);
const text = (node: unknown): string => (typeof node === 'object' && node !== null ? String((node as Node)['#text'] ?? '') : String(node ?? ''));

/** The transfers of a pain.001 file as the bank reads them. */
export function readPain001(name: string, xml: string): Pain001File {
  const root = child(parser.parse(xml), 'Document', 'CstmrCdtTrfInitn');
  const msgId = text(child(root, 'GrpHdr', 'MsgId'));
  const blocks = (child(root, 'PmtInf') as Node[] | undefined) ?? [];
  const transactions = blocks.flatMap((block) =>
    ((block.CdtTrfTxInf as Node[] | undefined) ?? []).map((tx) => {
      const amount = child(tx, 'Amt', 'InstdAmt');
      return {
        msgId,
        pmtInfId: text(block.PmtInfId),
        debtorIban: text(child(block, 'DbtrAcct', 'Id', 'IBAN')),
        endToEndId: text(child(tx, 'PmtId', 'EndToEndId')),
        amount: text(amount),
        currency: String((amount as Node | undefined)?.['@Ccy'] ?? ''),
      };
    }),
  );
  return { name, msgId, transactions };
}

export class SftpBank {
  private constructor(
    private readonly client: SftpClient,
    private readonly server: SftpServer,
  ) {}

  /** Logs in to the bank's server with the authorized key, checking its host key like Corridor does. */
  static async connect(server: SftpServer): Promise<SftpBank> {
    const client = new SftpClient('test-bank');
    await client.connect({ host: server.host, port: server.port, username: server.username, privateKey: fs.readFileSync(server.privateKeyFile), authHandler: ['publickey'] });
    return new SftpBank(client, server);
  }

  /** Every pain.001 file in the inbox (final names only: a `.part` is still being written). */
  async inbox(): Promise<Pain001File[]> {
    const names = (await this.client.list(this.server.inbox)).filter((e) => e.type === '-' && e.name.endsWith('.xml')).map((e) => e.name).sort();
    const files: Pain001File[] = [];
    for (const name of names) files.push(readPain001(name, ((await this.client.get(`${this.server.inbox}/${name}`)) as Buffer).toString('utf8')));
    return files;
  }

  /** The transfer of a payout (by its EndToEndId) once a file in the inbox carries it. */
  async transferOf(endToEndId: string, timeoutMs = 15_000): Promise<Pain001Transaction> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.inbox()).flatMap((f) => f.transactions).find((t) => t.endToEndId === endToEndId);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no pain.001 in the bank inbox carries ${endToEndId}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Writes an answer into the outbox: `<name>.part`, then renamed to `<name>`. */
  async answer(name: string, xml: string): Promise<void> {
    const final = `${this.server.outbox}/${name}`;
    await this.client.put(Buffer.from(xml, 'utf8'), `${final}.part`);
    await this.client.rename(`${final}.part`, final);
  }

  /** Whether Corridor has taken the answer in (moved it out of the outbox into archive/ or quarantine/). */
  async takenIn(name: string): Promise<'archive' | 'quarantine' | undefined> {
    for (const folder of ['archive', 'quarantine'] as const) {
      if (await this.client.exists(`${this.server.outbox}/${folder}/${name}`)) return folder;
    }
    return undefined;
  }

  /** Waits until Corridor has taken the answer in; returns where it went (generous: a loaded machine polls slowly). */
  async waitTakenIn(name: string, timeoutMs = 90_000): Promise<'archive' | 'quarantine'> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const where = await this.takenIn(name);
      if (where) return where;
      if (Date.now() > deadline) throw new Error(`Corridor did not take ${name} in`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  end(): Promise<void> {
    return this.client.end().then(() => undefined);
  }
}
