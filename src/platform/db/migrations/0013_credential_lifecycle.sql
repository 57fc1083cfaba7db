-- Credential lifecycle: a rotated credential keeps its previous secret's digest until
-- previous_secret_expires_at (the grace period the operator chose, 0 to 7 days), and a revoked one
-- records when. A revocation changes `status`, which the credentials_auth_changed trigger (0008)
-- already announces, so every API process forgets the credential at the revoking commit.
ALTER TABLE credentials
  ADD COLUMN previous_secret_hash       text,
  ADD COLUMN previous_secret_expires_at timestamptz,
  ADD COLUMN revoked_at                 timestamptz,
  ADD CONSTRAINT credentials_previous_secret_pair
    CHECK ((previous_secret_hash IS NULL) = (previous_secret_expires_at IS NULL));
