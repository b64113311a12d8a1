-- 0002_schema.sql — the schema cardinal and its access baseline.
--
-- The migrator may already have created the schema to hold its own table cardinal.schema_migrations,
-- hence IF NOT EXISTS. Ownership is handed to cardinal_owner explicitly because the migrator usually runs
-- as a superuser, and objects would otherwise belong to whoever happened to run the migration.

create schema if not exists cardinal;

alter schema cardinal owner to cardinal_owner;

comment on schema cardinal is
    'Cardinal engagement analytics: apps, ingest keys, settings, events (partitioned by month of event '
    'time), rejected events and report tables. Owned by cardinal_owner; see SQL/README.md.';

-- Nothing is granted to PUBLIC: every access goes through one of the three group roles.
revoke all on schema cardinal from public;
grant usage on schema cardinal to cardinal_ingest, cardinal_reader;

-- Tables and views that cardinal_owner itself creates later (report tables made by `cardinal report run`,
-- the monthly event partitions made by the SECURITY DEFINER function ensure_event_partitions) become
-- readable by the reader role without another grant.
--
-- Default privileges apply to the role that CREATES an object, not to the role it is later handed to with
-- ALTER ... OWNER TO. Objects that a migration creates as a superuser therefore get no defaults: every
-- migration that creates a table or view must grant it explicitly (SQL/checks/privilege_drift.sql finds
-- the ones that were forgotten).
alter default privileges for role cardinal_owner in schema cardinal
    grant select on tables to cardinal_reader;

-- New functions of cardinal_owner must not be executable by PUBLIC by default: some run as SECURITY
-- DEFINER. This has to be a database-wide default (without IN SCHEMA) because per-schema defaults can
-- only add to the global ones, never take away; it affects only functions created by cardinal_owner.
alter default privileges for role cardinal_owner
    revoke execute on functions from public;
