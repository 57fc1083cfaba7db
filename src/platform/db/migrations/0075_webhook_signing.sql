-- Standard Webhooks beside the spec's signature (issue 38, point 4).
--
-- A rotated secret may keep signing for a while (`graceSeconds` of POST /v1/webhooks/{id}/rotate-secret):
-- until previous_secret_until, each delivery's webhook-signature carries a v1 signature by the
-- previous secret too, so a receiver changes its secret at any moment of the overlap.
--
-- An endpoint may opt in to asymmetric signatures (`ed25519: true`): its Ed25519 private key,
-- sealed like the secret, signs each delivery (`v1a` in webhook-signature); receivers verify with
-- the public key (`whpk_…`), which is no secret and is shown on every read of the endpoint.
ALTER TABLE webhook_endpoints
  ADD COLUMN previous_secret_encrypted text,
  ADD COLUMN previous_secret_until     timestamptz,
  ADD COLUMN signing_key_encrypted     text,
  ADD COLUMN signing_public_key        text,
  ADD CONSTRAINT webhook_endpoints_previous_secret CHECK ((previous_secret_encrypted IS NULL) = (previous_secret_until IS NULL)),
  ADD CONSTRAINT webhook_endpoints_signing_key CHECK ((signing_key_encrypted IS NULL) = (signing_public_key IS NULL));
