import { Type } from 'typebox';
import { literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../lib/schemas.js';
import { EvidenceSchema } from '../screening/screening.schemas.js';

export const CHAIN_DEPOSIT_STATUSES = ['credited', 'held', 'rejected', 'reversed'] as const;

export const ChainDepositSchema = Type.Object(
  {
    id: Uuid,
    chain: Type.String({ description: 'The configured chain (the name in the connectors file)' }),
    txHash: Type.String(),
    position: Type.Integer({ description: "Its ordinal among the transaction's transfers of the same token, sender, recipient and amount: with those, what identifies the transfer whatever block it is mined in" }),
    logIndex: Type.Integer({ description: 'Where it was last seen (a reorg may move it)' }),
    blockNumber: Type.String({ description: 'Decimal block number where it was last seen' }),
    blockHash: Nullable(Type.String()),
    token: Type.String({ description: 'The token contract the Transfer log came from (lower-case)' }),
    currency: Nullable(Type.String({ description: 'USDC or USDT; null for a token Corridor does not take' })),
    amount: Nullable(Type.String({ description: 'The amount in the currency, when the token is one Corridor takes' })),
    amountMinor: Type.String({ description: "The amount in the token's base units, as the log says" }),
    fromAddress: Type.String(),
    toAddress: Type.String({ description: 'The deposit address' }),
    workspaceId: Uuid,
    accountId: Uuid,
    status: literals(
      CHAIN_DEPOSIT_STATUSES,
      'credited: a deposit was completed (depositId); held: kept for the operator, not credited; rejected: the operator refused it, never credited; reversed: gone from the chain after a reorg deeper than the confirmations, its credit taken back',
    ),
    depositId: Nullable(Uuid),
    reason: Nullable(Type.String({ description: 'Why it is held: sanctioned_address (evidence), unsupported_token, no_virtual_account, or what the deposit service refused' })),
    evidence: Type.Array(EvidenceSchema, { description: 'On sanctioned_address: the list entries naming the sender address' }),
    decidedBy: Nullable(Type.String({ description: 'The operator who released or rejected it' })),
    decidedAt: Nullable(Timestamp),
    reversedAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { title: 'Chain deposit (Transfer log taken by the watcher)' },
);

export const ChainDepositPage = Page('list', ChainDepositSchema);

export const ChainDepositListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(literals(CHAIN_DEPOSIT_STATUSES)),
  chain: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

export const ChainSchema = Type.Object(
  {
    name: Type.String(),
    network: Type.String({ description: "The catalog network it serves (a beneficiary's `network`)" }),
    chainId: Type.Integer(),
    confirmations: Type.Integer(),
    tokens: Type.Record(Type.String(), Type.String(), { description: 'Token contract per currency' }),
    hotWallet: Nullable(Type.String({ description: 'The address payouts leave from (fund it with the tokens and the gas coin); null when this chain does not pay out' })),
    receives: Type.Boolean({ description: 'Whether deposit addresses are issued and watched on this chain' }),
    status: literals(['up', 'down', 'unknown'] as const, "How the workers last found the chain's node: up; down (no RPC URL answers, or the node does not match the configuration: error), payouts and deposits wait and are retried on every look; unknown before any look"),
    error: Nullable(Type.String({ description: 'Why the chain is down (RPC URLs shown by host only)' })),
    checkedAt: Nullable(Timestamp),
  },
  { title: 'Configured chain' },
);

export const ChainList = Type.Object({ data: Type.Array(ChainSchema) });

export const ChainDepositParams = Type.Object({ id: Uuid });
