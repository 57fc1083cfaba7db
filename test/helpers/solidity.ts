import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Abi, Hex } from 'viem';

/** solc-js ships no types: the two members used. */
const solc = createRequire(import.meta.url)('solc') as { version(): string; compile(input: string): string };

/**
 * Compiles a Solidity file of the tests with the npm `solc` compiler (solc-js) and answers a contract's
 * ABI and bytecode. The output is cached in the system's temp folder under the hash of the source,
 * the compiler's version and the settings, so each source is compiled once per machine, not per test.
 */

const SETTINGS = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } };

export interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

export function compileSolidity(file: string, contract: string): Compiled {
  const source = fs.readFileSync(file, 'utf8');
  const name = path.basename(file);
  const key = createHash('sha256').update(`${solc.version()}\n${JSON.stringify(SETTINGS)}\n${name}\n${source}`).digest('hex').slice(0, 32);
  const cache = path.join(os.tmpdir(), `corridor-solc-${key}.json`);
  let out: SolcOutput;
  if (fs.existsSync(cache)) {
    out = JSON.parse(fs.readFileSync(cache, 'utf8')) as SolcOutput;
  } else {
    out = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources: { [name]: { content: source } }, settings: SETTINGS }))) as SolcOutput;
    const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
    if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
    // Written whole then renamed: a parallel test file never reads half of it.
    const tmp = `${cache}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(out));
    fs.renameSync(tmp, cache);
  }
  const c = out.contracts[name]?.[contract];
  if (!c) throw new Error(`solc: no contract ${contract} in ${name}`);
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}
