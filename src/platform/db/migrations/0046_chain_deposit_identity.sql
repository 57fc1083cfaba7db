-- A chain deposit is the transfer itself, not where it was mined: identified by its transaction, token,
-- sender, recipient, amount and position among that transaction's transfers with those four (the
-- same transaction re-mined after a reorg, at another block or log index, is the same deposit).
-- Its block (number and hash) and log index are where it was last seen. A transfer that vanished in a
-- reorg deeper than the confirmations is `reversed` (its credit taken back). A transfer from a listed
-- address is `held` with the screening `evidence`; the operator releases it (credited) or rejects it.
ALTER TABLE chain_deposits DROP CONSTRAINT chain_deposits_pkey;
ALTER TABLE chain_deposits DROP CONSTRAINT chain_deposits_status_check;
ALTER TABLE chain_deposits ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE chain_deposits ADD COLUMN transfer_position integer NOT NULL DEFAULT 0;
ALTER TABLE chain_deposits ADD COLUMN block_hash text;
ALTER TABLE chain_deposits ADD COLUMN evidence jsonb;
ALTER TABLE chain_deposits ADD COLUMN decided_by text;
ALTER TABLE chain_deposits ADD COLUMN decided_at timestamptz;
ALTER TABLE chain_deposits ADD COLUMN reversed_at timestamptz;
UPDATE chain_deposits d SET transfer_position = r.position
  FROM (SELECT chain, tx_hash, log_index,
               (row_number() OVER (PARTITION BY chain, tx_hash, token, from_address, to_address, amount_minor ORDER BY log_index) - 1)::int AS position
          FROM chain_deposits) r
 WHERE d.chain = r.chain AND d.tx_hash = r.tx_hash AND d.log_index = r.log_index;
ALTER TABLE chain_deposits ADD PRIMARY KEY (id);
CREATE UNIQUE INDEX chain_deposits_transfer ON chain_deposits (chain, tx_hash, token, from_address, to_address, amount_minor, transfer_position);
CREATE INDEX chain_deposits_block ON chain_deposits (chain, block_number);
ALTER TABLE chain_deposits ADD CONSTRAINT chain_deposits_status_check CHECK (status IN ('credited', 'held', 'rejected', 'reversed'));

-- The hash of the last block the watcher scanned (next_block - 1): a different hash there later is a
-- reorg deeper than the confirmations, and the watcher looks again at the blocks it may have changed.
ALTER TABLE chain_checkpoints ADD COLUMN last_hash text;
