-- privilege_drift.sql — objects in schema cardinal whose owner or privileges break the role model of
-- SQL/README.md. Must return no row after cardinal migrate. It catches, above all, a migration or code file
-- that creates an object as a superuser and forgets the explicit OWNER TO and grants (default privileges do
-- not help there: they apply to the creating role only).
--
-- cardinal.schema_migrations and cardinal.schema_code are the migrator's own tables and are left out.
--
-- Returns: object, problem; ordered.

with relations as (
    select c.oid, c.relname, c.relkind, c.relispartition, c.relowner,
           format('%I.%I', n.nspname, c.relname) as object
    from pg_catalog.pg_class as c
    join pg_catalog.pg_namespace as n on n.oid = c.relnamespace
    where n.nspname = 'cardinal'
      and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
      and c.relname not in ('schema_migrations', 'schema_code')
),
columns as (
    select r.oid, r.object, r.relname, r.relispartition, a.attnum, a.attname
    from relations as r
    join pg_catalog.pg_attribute as a on a.attrelid = r.oid
    where r.relkind <> 'S' and a.attnum > 0 and not a.attisdropped
),
functions as (
    select p.oid, p.proowner, p.prosecdef,
           format('%I.%I(%s)', n.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid))
               as object
    from pg_catalog.pg_proc as p
    join pg_catalog.pg_namespace as n on n.oid = p.pronamespace
    where n.nspname = 'cardinal'
)
select object, problem
from (
    select object, 'owned by ' || relowner::regrole::text || ', not cardinal_owner' as problem
    from relations
    where relowner <> 'cardinal_owner'::regrole

    union all
    select object, 'owned by ' || proowner::regrole::text || ', not cardinal_owner'
    from functions
    where proowner <> 'cardinal_owner'::regrole

    -- The reader sees every column of every table and view (partitions are read through their parent),
    -- except the ingest key hashes and the salt of the erasure audit's identity hashes (0022).
    union all
    select object || '.' || quote_ident(attname), 'not readable by cardinal_reader'
    from columns
    where not relispartition
      and not (relname = 'ingest_keys' and attname = 'key_hash')
      and relname <> 'erasure_salt'
      and not pg_catalog.has_column_privilege('cardinal_reader', oid, attnum, 'SELECT')

    union all
    select 'cardinal.ingest_keys.key_hash', 'readable by cardinal_reader'
    where pg_catalog.has_column_privilege('cardinal_reader', 'cardinal.ingest_keys', 'key_hash', 'SELECT')

    union all
    select 'cardinal.erasure_salt', 'readable by cardinal_reader'
    where pg_catalog.has_any_column_privilege('cardinal_reader', 'cardinal.erasure_salt', 'SELECT')

    -- Neither the reader nor the ingest role may change or remove anything; the ingest role inserts
    -- into events and rejected_events only.
    union all
    select object, role || ' may ' || privilege
    from relations
    cross join (values ('cardinal_reader'), ('cardinal_ingest')) as roles (role)
    cross join (values ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE'), ('REFERENCES'), ('TRIGGER'))
        as privileges (privilege)
    where relkind <> 'S'
      and not (role = 'cardinal_ingest' and privilege = 'INSERT'
               and object in ('cardinal.events', 'cardinal.rejected_events'))
      and pg_catalog.has_table_privilege(role, oid, privilege)

    -- The ingest role reads only the key columns of stored events (see 0008_privileges.sql).
    union all
    select object || '.' || quote_ident(attname), 'readable by cardinal_ingest'
    from columns
    where relname like 'events%'
      and not (relname = 'events' and attname in ('app_id', 'time', 'id'))
      and pg_catalog.has_column_privilege('cardinal_ingest', oid, attnum, 'SELECT')

    -- Beyond those key columns, the ingest role reads only the ingest keys, their apps' rate limits (0023)
    -- and the settings: what cardinald's
    -- own SQL reads (see 0020_ingest_least_privilege_and_key_format.sql). Triggers and the SECURITY DEFINER
    -- functions it calls read the rest as cardinal_owner.
    union all
    select object, 'readable by cardinal_ingest'
    from relations
    where relkind <> 'S'
      and relname not like 'events%'
      and object not in ('cardinal.ingest_keys', 'cardinal.settings', 'cardinal.ingest_rate_limits')
      and pg_catalog.has_any_column_privilege('cardinal_ingest', oid, 'SELECT')

    -- A SECURITY DEFINER function runs as cardinal_owner: it must never be callable by everyone.
    union all
    select object, 'SECURITY DEFINER and executable by PUBLIC'
    from functions
    where prosecdef
      and exists (select from pg_catalog.aclexplode(coalesce((select proacl from pg_catalog.pg_proc
                                                               where pg_proc.oid = functions.oid),
                                                              pg_catalog.acldefault('f', proowner))) as acl
                  where acl.grantee = 0 and acl.privilege_type = 'EXECUTE')
) as problems
order by object, problem;
