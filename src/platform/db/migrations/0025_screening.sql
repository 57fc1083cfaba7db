-- Sanctions screening (issue 23 point 1): list versions loaded from the official files, their entries,
-- the screening of beneficiaries, the payouts held on a hit, and the operator's dual-control setting.

-- Every load of a list is a version, kept for audit with its counts; the newest of a list is the one screened against.
CREATE TABLE screening_list_versions (
  id           uuid PRIMARY KEY,
  list         text NOT NULL CHECK (list IN ('ofac-sdn', 'un', 'eu', 'uk-ofsi')),
  format       text NOT NULL,
  sha256       text NOT NULL,
  bytes        bigint NOT NULL,
  entries      integer NOT NULL,
  names        integer NOT NULL,
  individuals  integer NOT NULL,
  entities     integer NOT NULL,
  loaded_by    text NOT NULL,
  loaded_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX screening_list_versions_page ON screening_list_versions (loaded_at DESC, id DESC);
CREATE INDEX screening_list_versions_active ON screening_list_versions (list, loaded_at DESC);

-- A version's entries as parsed (names, aliases, dates of birth, countries, programmes).
CREATE TABLE screening_entries (
  version_id     uuid NOT NULL REFERENCES screening_list_versions (id),
  position       integer NOT NULL,
  entry_id       text NOT NULL,
  kind           text NOT NULL,
  name           text NOT NULL,
  aliases        jsonb NOT NULL,
  dates_of_birth jsonb NOT NULL,
  countries      jsonb NOT NULL,
  programs       jsonb NOT NULL,
  PRIMARY KEY (version_id, position)
);

-- The last screening of each beneficiary (on create, on change, and after each new list version).
CREATE TABLE beneficiary_screenings (
  beneficiary_id uuid PRIMARY KEY REFERENCES beneficiaries (id),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id),
  status         text NOT NULL CHECK (status IN ('clear', 'hit')),
  hits           jsonb NOT NULL,
  screened_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX beneficiary_screenings_hits ON beneficiary_screenings (screened_at DESC) WHERE status = 'hit';

-- A payout held at submit because its beneficiary or sender matched a list: it stays queued, with no
-- provider step scheduled, until an operator releases it (its step is scheduled) or rejects it (it fails
-- with compliance_rejected and its funds are released). With dual control, the first release is
-- recorded in release_approved_by and a second, different operator releases it.
CREATE TABLE payout_screenings (
  payout_id            uuid PRIMARY KEY REFERENCES payouts (id),
  workspace_id         uuid NOT NULL REFERENCES workspaces (id),
  client_ref           text NOT NULL,
  amount_minor         numeric NOT NULL,
  currency             text NOT NULL,
  status               text NOT NULL CHECK (status IN ('held', 'released', 'rejected')),
  hits                 jsonb NOT NULL,
  release_approved_by  text,
  decided_by           text,
  decided_at           timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payout_screenings_page ON payout_screenings (created_at DESC, payout_id DESC);
CREATE INDEX payout_screenings_held ON payout_screenings (created_at DESC) WHERE status = 'held';

-- The operator's screening settings (one row).
CREATE TABLE screening_settings (
  id           boolean PRIMARY KEY DEFAULT true CHECK (id),
  dual_control boolean NOT NULL DEFAULT false,
  updated_by   text,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
INSERT INTO screening_settings (id) VALUES (true);
