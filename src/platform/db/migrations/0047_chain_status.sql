-- Whether each chain's node answers, as the workers last found it (the console and the operator API
-- show a chain down while its RPC URLs do not answer; the API runs without it).
CREATE TABLE chain_status (
  chain       text PRIMARY KEY,
  up          boolean NOT NULL,
  error       text,
  checked_at  timestamptz NOT NULL DEFAULT now()
);
