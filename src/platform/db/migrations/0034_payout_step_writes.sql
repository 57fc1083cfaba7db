-- Less PostgreSQL work per paid payout, the payout step half (issue 26; the counts before and after
-- are in docs/benchmarks.md). Every commit stays durable: nothing here is unlogged or asynchronous.
--
-- The code changes with it (no schema change needed): payout step jobs are taken and deleted in the
-- transaction of the steps (no claim written, no lease), and one step job names every payout due at
-- the same time in a creation or step batch (payload `payoutIds`) instead of a job row per payout.

-- The daily-limit sum (lockPaidToday: a workspace's payouts in one currency since midnight UTC) is
-- the one read of payouts_daily, and payouts_page (workspace_id, created_at DESC, id DESC) finds the
-- same rows, the currency checked on the row it reads anyway for the amount and status. Every payout
-- inserted, and every move that is not a HOT update, wrote an entry in it for that.
DROP INDEX payouts_daily;
