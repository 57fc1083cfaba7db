-- Onboarding (spec §Application (KYB / KYC); DESIGN §4 Applications) and the uploads behind its documents.
-- Personal data (applicant, persons, business details) is kept sealed (AES-256-GCM, lib/crypto-box) in `data`;
-- only what the state machine and the lists need is in plain columns.

-- An upload slot: issued with a signed URL, filled once by a PUT to it (modules/storage).
CREATE TABLE uploads (
  key            text PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id),
  purpose        text NOT NULL,
  owner_id       uuid NOT NULL,
  storage_key    text NOT NULL,
  content_type   text NOT NULL,
  content_length bigint NOT NULL CHECK (content_length > 0),
  expires_at     timestamptz NOT NULL,
  uploaded_at    timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX uploads_owner ON uploads (owner_id);
CREATE INDEX uploads_unfilled ON uploads (expires_at) WHERE uploaded_at IS NULL;

CREATE TABLE applications (
  id                uuid PRIMARY KEY,
  workspace_id      uuid NOT NULL REFERENCES workspaces (id),
  account_id        uuid REFERENCES accounts (id),
  application_type  text NOT NULL CHECK (application_type IN ('business', 'individual')),
  status            text NOT NULL DEFAULT 'draft'
                    CHECK (status IN ('draft', 'under_review', 'approved', 'more_info_requested', 'rejected')),
  data              text NOT NULL,
  editable_sections text[] NOT NULL DEFAULT '{}',
  more_info_reason  text,
  risk_level        text CHECK (risk_level IN ('low', 'medium', 'high', 'prohibited')),
  screening_status  text NOT NULL DEFAULT 'pending'
                    CHECK (screening_status IN ('pending', 'in_progress', 'clear', 'flagged', 'failed', 'timed_out')),
  terms_version     text,
  terms_accepted_at timestamptz,
  submitted_at      timestamptz,
  decided_at        timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'more_info_requested') = (more_info_reason IS NOT NULL))
);
CREATE INDEX applications_workspace_page ON applications (workspace_id, created_at DESC, id DESC);
CREATE INDEX applications_account_page ON applications (workspace_id, account_id, created_at DESC, id DESC);
CREATE INDEX applications_status_page ON applications (status, created_at DESC, id DESC);

CREATE TABLE application_persons (
  id             uuid PRIMARY KEY,
  seq            bigserial NOT NULL, -- the order persons were added in
  application_id uuid NOT NULL REFERENCES applications (id),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id),
  data           text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX application_persons_of ON application_persons (application_id, seq);

-- A registered document; deleting it marks it deleted (the bytes are kept with the application's record).
CREATE TABLE application_documents (
  id             uuid PRIMARY KEY,
  seq            bigserial NOT NULL, -- the order documents were registered in
  application_id uuid NOT NULL REFERENCES applications (id),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id),
  person_id      uuid,
  type           text NOT NULL CHECK (type IN ('photo_id', 'proof_of_address', 'certificate_of_incorporation',
                   'articles_of_association', 'shareholder_register', 'bank_statement', 'other')),
  upload_key     text NOT NULL UNIQUE REFERENCES uploads (key),
  content_type   text NOT NULL,
  size_bytes     bigint NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz
);
CREATE INDEX application_documents_of ON application_documents (application_id, seq) WHERE deleted_at IS NULL;
