-- Trade-desk orders delivered to a beneficiary are screened too (issue 33 point 4): an order whose
-- beneficiary matches a list is held at creation. While held, the desk cannot execute or complete it;
-- an operator releases it (the desk may then go on) or rejects it (the order fails, its held funds
-- return). A hold still open when the order is cancelled, expires or fails otherwise is withdrawn,
-- its evidence kept.
CREATE TABLE order_screenings (
  order_id      uuid PRIMARY KEY REFERENCES orders (id),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  beneficiary_id uuid NOT NULL REFERENCES beneficiaries (id),
  status        text NOT NULL CHECK (status IN ('held', 'released', 'rejected', 'withdrawn')),
  hits          jsonb NOT NULL,
  decided_by    text,
  decided_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX order_screenings_page ON order_screenings (created_at DESC, order_id DESC);
CREATE INDEX order_screenings_held ON order_screenings (created_at DESC) WHERE status = 'held';
