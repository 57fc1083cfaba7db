import path from 'node:path';
import { createWalletClient, http, type Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Anvil } from '../helpers/anvil.js';
import { compileSolidity } from '../helpers/solidity.js';

/**
 * The tokens that behave like the real ones (test/fixtures/chain/tokens, compiled here with solc-js):
 * IssuerUSD as USDC (blacklist on sender and recipient, pause, EIP-3009) and FeeUSD as USDT
 * (`transfer` returns nothing, a transfer fee, a blacklist of the sender only, destroyBlackFunds).
 * The anvil deployer (dev account 0) is their issuer.
 */

const dir = path.join(import.meta.dirname, '../fixtures/chain/tokens');
export const ISSUER_USD = compileSolidity(path.join(dir, 'IssuerUSD.sol'), 'IssuerUSD');
export const FEE_USD = compileSolidity(path.join(dir, 'FeeUSD.sol'), 'FeeUSD');

async function deploy(anvil: Anvil, c: { abi: Abi; bytecode: Hex }, args: unknown[]): Promise<Address> {
  const hash = await anvil.wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args, account: anvil.wallet.account ?? null, chain: anvil.wallet.chain });
  const receipt = await anvil.public.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (!receipt.contractAddress) throw new Error('no contract deployed');
  return receipt.contractAddress;
}

export const deployIssuerUsd = (anvil: Anvil, decimals = 6) => deploy(anvil, ISSUER_USD, ['Issuer USD', 'USDC', decimals]);
export const deployFeeUsd = (anvil: Anvil, decimals = 6) => deploy(anvil, FEE_USD, ['Fee USD', 'USDT', BigInt(decimals)]);

/** The issuer (the deployer) calls one of a token's own controls (blacklist, pause, setParams, destroyBlackFunds…), mined. */
export async function issuerCall(anvil: Anvil, token: Address, abi: Abi, functionName: string, args: unknown[] = []): Promise<void> {
  const hash = await anvil.wallet.writeContract({ address: token, abi, functionName, args, account: anvil.wallet.account ?? null, chain: anvil.wallet.chain });
  const receipt = await anvil.public.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
}

/** A transaction from a key outside Corridor (the hot wallet used elsewhere): an empty ETH transfer, at this nonce if told. */
export async function outsideTransaction(anvil: Anvil, key: Hex, nonce?: number): Promise<Hex> {
  const account = privateKeyToAccount(key);
  const wallet = createWalletClient({ chain: anvil.wallet.chain, transport: http(anvil.url), account });
  const hash = await wallet.sendTransaction({ to: account.address, value: 0n, account, chain: anvil.wallet.chain ?? null, ...(nonce === undefined ? {} : { nonce }) });
  await anvil.public.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return hash;
}
