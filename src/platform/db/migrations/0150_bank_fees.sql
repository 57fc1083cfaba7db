-- Bank charges (issue 32 point 2): a return net of the charges the banks on the way took reverts
-- the payout in full to the workspace, and the charges are the operator's cost, posted to the
-- ledger's bank_fees system account (one per currency, ensured at start like the others). The
-- return's movement keeps the charges beside the net amount the bank booked (charges_minor), so
-- the operator sees them on the reconciliation. The wider kind check is added NOT VALID here and
-- validated in 0151, in its own transaction (every existing row holds one of the older kinds).
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('customer', 'provider_clearing', 'fee_revenue', 'fx_desk',
  'deposit_suspense', 'operator_adjustments', 'sandbox_funding', 'bank_fees')) NOT VALID;
ALTER TABLE bank_movements ADD COLUMN charges_minor numeric(38, 0);
ALTER TABLE bank_movements ADD CONSTRAINT bank_movements_charges_check CHECK (charges_minor IS NULL OR charges_minor > 0) NOT VALID;
