-- What a transfer is worth in the ledger: its amount at the currency's scale (a token with 18 decimals,
-- as on BNB Chain, has 10^12 base units to a minor unit; what is left below one is not credited).
-- Null on rows taken before it (6-decimal tokens: the amount itself).
SET lock_timeout = '5s';
SET statement_timeout = '30s';
ALTER TABLE chain_deposits ADD COLUMN credit_minor numeric(78, 0);
RESET lock_timeout;
RESET statement_timeout;
