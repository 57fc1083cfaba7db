-- corridor:outside-transaction
-- The refused callbacks of the last minutes (the alert source mobile_money.callback_refused counts
-- them every minute, as mobile_money.unknown_callback counts the unknown ones with 0105's
-- momo_callbacks_unknown): anyone can PUT to the callback URL, so refused rows may be many. Built
-- without blocking the callback endpoint's writes: CONCURRENTLY, outside a transaction, with the long
-- lock timeout of 0166 (the build waits for open write transactions and older snapshots).
SET lock_timeout = '15min';
SET statement_timeout = 0;
CREATE INDEX CONCURRENTLY IF NOT EXISTS momo_callbacks_refused ON momo_callbacks (received_at) WHERE outcome = 'refused';
RESET lock_timeout;
RESET statement_timeout;
