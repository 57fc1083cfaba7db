-- Where an on-chain deposit came from, as integrators read it: the chain, the transaction, the sender
-- and the block (null on every other deposit).
ALTER TABLE deposits ADD COLUMN chain_details jsonb;
