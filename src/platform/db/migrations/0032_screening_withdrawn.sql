-- A payout's screening hold closes as `withdrawn` when the payout leaves `queued` otherwise than by a
-- screening decision (its customer cancels it, the operator or the sandbox fails it, its approval is
-- rejected or expires): the hold keeps its evidence (hits) and says when it closed (decided_at, by
-- `system`), and it leaves the held queue. A payout's pending approval is withdrawn the same way.
ALTER TABLE payout_screenings DROP CONSTRAINT payout_screenings_status_check;
ALTER TABLE payout_screenings ADD CONSTRAINT payout_screenings_status_check CHECK (status IN ('held', 'released', 'rejected', 'withdrawn'));
-- The holds and approvals of payouts that left `queued` before this migration, closed the same way.
UPDATE payout_screenings SET status = 'withdrawn', decided_by = 'system', decided_at = now()
 WHERE status = 'held' AND EXISTS (SELECT 1 FROM payouts p WHERE p.id = payout_screenings.payout_id AND p.status NOT IN ('created', 'queued'));
UPDATE payout_approvals SET status = 'withdrawn', decided_by = 'system', decided_at = now(), reason = 'The payout was ' || p.status || ' meanwhile'
  FROM payouts p
 WHERE p.id = payout_approvals.payout_id AND payout_approvals.status = 'pending' AND p.status NOT IN ('created', 'queued');
