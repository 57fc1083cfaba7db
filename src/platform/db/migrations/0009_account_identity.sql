-- The business identity on record of a sub-account: set when its own business application is
-- approved, and the originator of its payouts sent without senderInfo.
ALTER TABLE accounts ADD COLUMN business_identity jsonb;
