import { Type } from 'typebox';
import { literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { EvidenceSchema } from '../../controls/screening/screening.port.js';

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
export const CHAIN_OPEN_PAYOUT_STATUSES = ['accepted', 'signed', 'sent', 'conflict'] as const;

export const TreasuryConditionSchema = Type.Object({
  chain: Type.String(),
  code: Type.String({ description: 'breaker_open, nonce_drift, nonce_conflict, gas_low, token_low, processing_too_long, node_unreachable, reconciliation_difference or float_difference' }),
  message: Type.String({ description: 'What is wrong and what the operator does' }),
});

export const ChainBreakerSchema = Type.Object({
  open: Type.Boolean({ description: 'Open: no payout of the chain is signed; those accepted are held (not failed) until the operator resumes it' }),
  reason: Nullable(Type.String({ description: 'Why it opened: nonce_drift, token_paused, hot_wallet_frozen, or the refusal or revert repeated (recipient_frozen_by_issuer, token_transfer_fee, chain_transfer_reverted)' })),
  detail: Nullable(Type.String({ description: "The node's or the issuer's own words" })),
  openedAt: Nullable(Timestamp),
  streakReason: Nullable(Type.String({ description: 'The refusal or revert repeated in a row now' })),
  streakCount: Type.Integer(),
  threshold: Type.Integer({ description: 'The same refusal this many times in a row opens it (breakerThreshold)' }),
});

export const ChainTreasurySchema = Type.Object(
  {
    chain: Type.String(),
    hotWallet: Nullable(Type.String()),
    gas: Nullable(Type.Object({ balance: Type.String({ description: 'The gas coin, in its whole units (18 decimals)' }), balanceWei: Type.String(), lowBelow: Type.String() })),
    tokens: Type.Array(Type.Object({ currency: Type.String(), token: Type.String(), balance: Type.String(), lowBelow: Nullable(Type.String()) })),
    nonce: Nullable(Type.Object({ next: Nullable(Type.String({ description: "Corridor's next nonce (null before the first payout)" })), onChain: Type.String({ description: "The chain's count of the hot wallet's transactions, pending included" }) })),
    processing: Type.Object({
      count: Type.Integer({ description: 'Payouts signed and not yet ended (in conflict included)' }),
      oldestAgeSeconds: Nullable(Type.Integer()),
      alarmAfterSeconds: Type.Integer(),
      conflicts: Type.Integer(),
      held: Type.Integer({ description: 'Payouts accepted and waiting to be signed (held while the breaker is open)' }),
    }),
    lastBlock: Type.Object({ head: Nullable(Type.String({ description: "The node's latest block" })), watcherNext: Nullable(Type.String({ description: 'The next block the deposit watcher scans' })) }),
    breaker: ChainBreakerSchema,
    nodeError: Nullable(Type.String()),
    reconciliation: Type.Array(
      Type.Object({
        currency: Type.String(),
        token: Type.String(),
        depositAddresses: Nullable(
          Type.Object({
            onChain: Type.String({ description: "What the chain's deposit addresses hold of the token, in its base units" }),
            expected: Type.String({ description: 'The records\' view: every transfer taken and still on the chain, less what confirmed sweeps took' }),
            difference: Type.String({ description: 'onChain − expected (0 when reconciled)' }),
          }),
        ),
        hotWallet: Type.Object({
          onChain: Nullable(Type.String({ description: "The hot wallet's balance of the token, in its base units" })),
          sweptIn: Type.String({ description: 'What confirmed sweeps brought it' }),
          ledger: Nullable(Type.String({ description: "The ledger's float of the chain (what payouts paid out, sweeps and the operator's fundings left the wallet), in base units; null when the chain does not pay out" })),
          ledgerAmount: Nullable(Type.String({ description: 'The same, as an amount of the currency' })),
          payingOut: Type.String({ description: 'Payouts signed and not yet settled, in base units (they may have left the wallet already)' }),
          sweepingIn: Type.String({ description: 'Sweeps recorded and not yet confirmed, in base units (they may have arrived already)' }),
          difference: Nullable(Type.String({ description: 'How far onChain lies outside [ledger − payingOut, ledger + sweepingIn] (0 when reconciled); beyond tolerance it raises float_difference' })),
          tolerance: Type.String({ description: 'reconcileTolerance in base units' }),
        }),
      }),
      { description: 'On-chain balances against the records, per token' },
    ),
    conditions: Type.Array(TreasuryConditionSchema),
  },
  { title: 'Chain treasury' },
);

export const ChainTreasuryList = Type.Object({ data: Type.Array(ChainTreasurySchema) });

export const ChainPayoutSchema = Type.Object(
  {
    payoutId: Uuid,
    chain: Type.String(),
    currency: Type.String(),
    token: Type.String(),
    toAddress: Type.String(),
    amount: Type.String(),
    status: Type.String({ description: 'accepted (waiting for a nonce, held while the breaker is open), signed, sent, conflict (its nonce taken by a transaction not ours: re-sign or cancel), confirmed, failed, cancelled' }),
    nonce: Nullable(Type.String()),
    deliveredAmount: Nullable(Type.String({ description: "What the recipient's Transfer log says arrived, when less than the amount" })),
    failureReason: Nullable(Type.String()),
    errorDetail: Nullable(Type.String({ description: "The node's or the issuer's own words on the last refusal, revert or conflict" })),
    ageSeconds: Type.Integer({ description: 'Since it was handed to the chain connector' }),
    createdAt: Timestamp,
  },
  { title: 'Chain payout' },
);

export const ChainPayoutList = Type.Object({ data: Type.Array(ChainPayoutSchema) });
export const ChainNameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });
export const ChainResumed = Type.Object({ chain: Type.String(), resumed: Type.Boolean({ description: 'false: the breaker was not open' }), breaker: ChainBreakerSchema });

export const ChainSweepSchema = Type.Object(
  {
    id: Uuid,
    chain: Type.String(),
    currency: Type.String(),
    token: Type.String(),
    fromAddress: Type.String({ description: 'The deposit address swept' }),
    toAddress: Type.String({ description: 'The hot wallet' }),
    amountUnits: Type.String({ description: "The amount in the token's base units" }),
    amount: Nullable(Type.String()),
    method: Type.String({ description: 'authorization (USDC: EIP-3009 signed by the deposit address, relayed by the gas wallet) or top_up (USDT: gas from the gas wallet, then a transfer)' }),
    status: Type.String({ description: 'signed (recorded, not yet sent), topped_up, sent, confirmed, failed' }),
    topUpTxHash: Nullable(Type.String()),
    txHash: Type.String(),
    blockNumber: Nullable(Type.String()),
    error: Nullable(Type.String()),
    createdAt: Timestamp,
    confirmedAt: Nullable(Timestamp),
  },
  { title: 'Chain sweep' },
);

export const ChainSweepList = Type.Object({ data: Type.Array(ChainSweepSchema) });

export const ChainFundingBody = Type.Object(
  {
    currency: Type.String({ description: "One of the chain's tokens (USDC, USDT)", minLength: 1, maxLength: 10 }),
    amount: Type.String({ description: 'What the operator moved, in the currency (decimal string)', minLength: 1, maxLength: 40 }),
    direction: Type.Union([Type.Literal('in'), Type.Literal('out')], { description: 'in: the operator funded the hot wallet; out: the operator took tokens out of it' }),
    txHash: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'The transaction that moved the tokens, kept on the ledger transfer' })),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { title: 'Chain hot wallet funding request' },
);

export const ChainFundingSchema = Type.Object(
  {
    chain: Type.String(),
    currency: Type.String(),
    direction: Type.String({ description: 'in or out' }),
    amount: Type.String(),
    transferId: Uuid,
    txHash: Nullable(Type.String()),
    float: Type.String({ description: "The ledger's float of the chain in the currency after it (what the hot wallet should hold)" }),
  },
  { title: 'Chain hot wallet funding' },
);
