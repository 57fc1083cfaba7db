-- Announces every change to what authentication reads, in the changing transaction, on the channel
-- corridor_auth_changes with the workspace id as payload: each API process then forgets what it
-- remembered of that workspace when the change commits (src/http/credential-cache.ts). Triggers, so
-- no writer (the API, the operator CLI, a manual UPDATE) can forget to announce.
CREATE FUNCTION corridor_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  workspace_ids uuid[];
BEGIN
  IF TG_TABLE_NAME = 'workspaces' THEN
    workspace_ids := CASE TG_OP WHEN 'DELETE' THEN ARRAY[OLD.id] ELSE ARRAY[NEW.id] END;
  ELSE
    workspace_ids := CASE TG_OP WHEN 'DELETE' THEN ARRAY[OLD.workspace_id] ELSE ARRAY[OLD.workspace_id, NEW.workspace_id] END;
  END IF;
  PERFORM pg_notify('corridor_auth_changes', w::text) FROM (SELECT DISTINCT unnest(workspace_ids) AS w) ids;
  RETURN NULL;
END
$$;

CREATE TRIGGER workspaces_auth_changed AFTER UPDATE OR DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION corridor_auth_changed();
CREATE TRIGGER credentials_auth_changed AFTER UPDATE OF scopes, status, workspace_id OR DELETE ON credentials
  FOR EACH ROW EXECUTE FUNCTION corridor_auth_changed();
CREATE TRIGGER accounts_auth_changed AFTER UPDATE OF workspace_id, account_type OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION corridor_auth_changed();
