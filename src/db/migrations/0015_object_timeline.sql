-- An object's timeline in the dashboard (a payout's page): the events about it, found by the id in
-- their data, and the webhook deliveries of those events.
CREATE INDEX events_object ON events (workspace_id, (data->>'id'));
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
