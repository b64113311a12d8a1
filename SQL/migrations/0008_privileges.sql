-- 0008_privileges.sql — what each group role may do. Everything not granted here is denied.
--
-- cardinal_owner owns the schema and every object in it (ALTER ... OWNER TO in each file), so it needs no
-- grant. Privileges on cardinal.events also cover its partitions when accessed through it; nobody needs
-- to address a partition directly, so partitions get no grants beyond the owner's default privileges.
--
-- Findings behind these grants (measured on PostgreSQL 15.18 with a role holding only INSERT):
--   * INSERT ... ON CONFLICT DO NOTHING without a conflict target needs only INSERT.
--   * ON CONFLICT (app_id, time, id) DO NOTHING needs SELECT on the target columns (42501 otherwise).
--   * RETURNING needs SELECT on every column it names (42501 otherwise); RETURNING 1 needs none.
--   * CREATE TEMP TABLE ... (LIKE cardinal.events) needs table-level SELECT, column grants are not enough:
--     the daemon must spell out its staging table's columns.
--   * An identity column (rejected_events.rejection_id) needs no privilege on its sequence.
--   * Any column-level SELECT also allows count(*).
-- The group-commit writer returns the key of each inserted row to tell accepted from duplicate events.
-- One batch holds several requests, possibly of several apps, and a misbehaving client can reuse an id;
-- only the whole key (app_id, time, id) maps a returned row back to its request without ambiguity. So
-- the ingest role gets SELECT on exactly those three columns: it can read keys (and count rows) but no
-- user, campaign or property data; SELECT * and any other column still fail with 42501.


-- Connecting and temporary tables are PUBLIC's by default, but hardened clusters revoke them; the daemon
-- needs a temporary staging table for COPY. Database grants name the database, hence dynamic SQL.
do $database$
begin
    execute format('grant connect, temporary on database %I to cardinal_ingest', current_database());
    execute format('grant connect on database %I to cardinal_reader', current_database());
end
$database$;


-- cardinal_ingest: the daemon.
grant select on
    cardinal.apps,
    cardinal.ingest_keys,
    cardinal.settings,
    cardinal.campaign_settings
    to cardinal_ingest;

grant insert on
    cardinal.events,
    cardinal.rejected_events
    to cardinal_ingest;

grant select (app_id, time, id) on cardinal.events to cardinal_ingest;

grant execute on function cardinal.ensure_event_partitions(timestamptz, timestamptz) to cardinal_ingest;


-- cardinal_reader: analysts and dashboards. Every table except the key hashes; no write privilege at all.
grant select on
    cardinal.apps,
    cardinal.settings,
    cardinal.campaign_settings,
    cardinal.events,
    cardinal.rejected_events
    to cardinal_reader;

grant select (key_id, app_id, created_at, revoked_at, description) on cardinal.ingest_keys to cardinal_reader;
