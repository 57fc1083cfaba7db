-- The digital-currency addresses a list version's entries carry (OFAC's "Digital Currency Address -
-- ETH 0x…"), looked up by key (hex and bech32 lower-cased, base58 as written): a chain payout to one
-- is held like a name hit, a chain deposit from one is held for the operator.
CREATE TABLE screening_addresses (
  version_id   uuid NOT NULL REFERENCES screening_list_versions (id),
  address_key  text NOT NULL,
  address      text NOT NULL,
  currency     text NOT NULL,
  entry_id     text NOT NULL,
  entry_name   text NOT NULL,
  PRIMARY KEY (version_id, address_key, currency, entry_id)
);
CREATE INDEX screening_addresses_key ON screening_addresses (address_key);

ALTER TABLE screening_list_versions ADD COLUMN addresses integer NOT NULL DEFAULT 0;
