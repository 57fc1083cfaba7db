-- An object's timeline in the dashboard (a payout's page): the events about it, found by the id in
-- their data. (Their webhook deliveries are found by event_id: webhook_deliveries_event, 0007.)
CREATE INDEX events_object ON events (workspace_id, (data->>'id'));
