-- What a connector reports of a payout beyond its status (src/modules/payouts/payouts.outcomes.ts):
-- the rail's return or reject reason ({code, description}: an ISO 20022 status or return reason),
-- and the rail's own references ({uetr} for SWIFT, {txHash, chain} on chain). Both additive on the
-- payout read and its events.
ALTER TABLE payouts ADD COLUMN return_reason jsonb;
ALTER TABLE payouts ADD COLUMN rail jsonb;
