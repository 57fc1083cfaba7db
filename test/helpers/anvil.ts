import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  parseAbi,
  type Address,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { freePort } from './processes.js';

/**
 * A real EVM node for the chain tests: `anvil` from the @foundry-rs/anvil npm package (its platform
 * package ships the binary, found beside it with require.resolve), on a free loopback port, with
 * the 6-decimal test ERC-20 of test/fixtures/chain deployed by the tests.
 */

const require = createRequire(import.meta.url);

/** The anvil binary of the installed platform package (@foundry-rs/anvil-<os>-<arch>). */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  const bin = path.join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!fs.existsSync(bin)) throw new Error(`${pkg} has no anvil binary at ${bin}`);
  return bin;
}

/** anvil's well-known dev accounts (mnemonic "test test … junk"), funded with ETH at genesis. */
export const DEV_KEYS: readonly Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
];

export const TOKEN_ABI = parseAbi([
  'constructor(string name_, string symbol_, uint8 decimals_)',
  'function mint(address to, uint256 value)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function decimals() view returns (uint8)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/chain/TestToken.json'), 'utf8')) as { bytecode: Hex };

export interface Anvil {
  url: string;
  chainId: number;
  public: PublicClient;
  test: TestClient<'anvil'>;
  /** The first dev account: deploys and mints. */
  wallet: WalletClient;
  deployer: Address;
  /** Deploys the test ERC-20 with these decimals (6 unless told) and answers its address. */
  deployToken: (symbol: string, decimals?: number) => Promise<Address>;
  mint: (token: Address, to: Address, amount: bigint) => Promise<void>;
  /** A transfer from a dev account (by index in DEV_KEYS), mined as the node mines. */
  transferFrom: (keyIndex: number, token: Address, to: Address, amount: bigint) => Promise<Hex>;
  balance: (token: Address, owner: Address) => Promise<bigint>;
  mine: (blocks?: number) => Promise<void>;
  /** Every Transfer log of a token (from the genesis). */
  transfers: (token: Address) => Promise<{ from: Address; to: Address; value: bigint; transactionHash: Hex }[]>;
  stop: () => Promise<void>;
}

/**
 * Starts anvil on a free loopback port. Automine (a block per transaction) unless `blockTimeSeconds`
 * asks for interval mining; `noMining` leaves every block to `mine()`.
 */
export async function startAnvil(options: { chainId?: number; noMining?: boolean } = {}): Promise<Anvil> {
  const port = await freePort();
  const chainId = options.chainId ?? 31337;
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent', '--accounts', '4'];
  if (options.noMining) args.push('--no-mining');
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const chain = defineChain({ id: chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
  const transport = http(url);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await publicClient.getBlockNumber({ cacheTime: 0 });
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('anvil did not start');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const testClient = createTestClient({ chain, transport, mode: 'anvil' });
  const account = privateKeyToAccount(DEV_KEYS[0] as Hex);
  const wallet = createWalletClient({ chain, transport, account });
  const wallets = DEV_KEYS.map((key) => createWalletClient({ chain, transport, account: privateKeyToAccount(key) }));
  const waitMined = async (hash: Hex) => {
    if (options.noMining) await testClient.mine({ blocks: 1 });
    return publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  };
  return {
    url,
    chainId,
    public: publicClient,
    test: testClient,
    wallet,
    deployer: account.address,
    deployToken: async (symbol, decimals = 6) => {
      const hash = await wallet.deployContract({ abi: TOKEN_ABI, bytecode: fixture.bytecode, args: [`Test ${symbol}`, symbol, decimals], account, chain });
      const receipt = await waitMined(hash);
      if (!receipt.contractAddress) throw new Error('no contract deployed');
      return receipt.contractAddress;
    },
    mint: async (token, to, amount) => {
      await waitMined(await wallet.writeContract({ address: token, abi: TOKEN_ABI, functionName: 'mint', args: [to, amount], account, chain }));
    },
    transferFrom: async (keyIndex, token, to, amount) => {
      const w = wallets[keyIndex] as WalletClient;
      return w.writeContract({ address: token, abi: TOKEN_ABI, functionName: 'transfer', args: [to, amount], account: w.account ?? null, chain });
    },
    balance: (token, owner) => publicClient.readContract({ address: token, abi: TOKEN_ABI, functionName: 'balanceOf', args: [owner] }),
    mine: (blocks = 1) => testClient.mine({ blocks }),
    transfers: async (token) => {
      const logs = await publicClient.getContractEvents({ address: token, abi: TOKEN_ABI, eventName: 'Transfer', fromBlock: 0n, toBlock: 'latest' });
      return logs.map((l) => ({ from: l.args.from as Address, to: l.args.to as Address, value: l.args.value as bigint, transactionHash: l.transactionHash }));
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
