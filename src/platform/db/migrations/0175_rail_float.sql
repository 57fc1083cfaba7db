-- The rail float (issue 39 point 7): a ledger account per chain and currency (kind rail_float, code
-- the chain's name) saying what the operator's hot wallet on that chain should hold of the token:
-- payouts paid out of it decrease it, sweeps into it increase it, and the operator's fundings and
-- withdrawals are recorded against operator_adjustments. The treasury reconciles the hot wallet's
-- on-chain balance against it. The wider kind check is added NOT VALID here and validated in 0176,
-- in its own transaction (every existing row holds one of the older kinds).
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('customer', 'provider_clearing', 'fee_revenue', 'fx_desk',
  'deposit_suspense', 'operator_adjustments', 'sandbox_funding', 'bank_fees', 'rail_float')) NOT VALID;
