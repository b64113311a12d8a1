-- uncommented_objects.sql — the schema cardinal, and every table, view, materialized view, foreign table,
-- index and function in it, that has no COMMENT. Must return no row after the migrations.
--
-- Sequences are left out: identity sequences are made by PostgreSQL and explained by their column. So are
-- indexes that implement a PRIMARY KEY or UNIQUE constraint: the constraint says why they exist. Every
-- other index must say which query it serves.
--
-- Returns: kind, name (schema-qualified; functions with their argument types); ordered.

select 'schema' as kind, format('%I', n.nspname) as name
from pg_catalog.pg_namespace as n
where n.nspname = 'cardinal'
  and coalesce(btrim(pg_catalog.obj_description(n.oid, 'pg_namespace')), '') = ''

union all

select case c.relkind
           when 'r' then 'table'
           when 'p' then 'partitioned table'
           when 'v' then 'view'
           when 'm' then 'materialized view'
           when 'f' then 'foreign table'
           when 'i' then 'index'
           when 'I' then 'partitioned index'
       end,
       format('%I.%I', n.nspname, c.relname)
from pg_catalog.pg_class as c
join pg_catalog.pg_namespace as n on n.oid = c.relnamespace
where n.nspname = 'cardinal'
  and c.relkind in ('r', 'p', 'v', 'm', 'f', 'i', 'I')
  and not exists (select from pg_catalog.pg_constraint as k where k.conindid = c.oid and k.contype in ('p', 'u'))
  and coalesce(btrim(pg_catalog.obj_description(c.oid, 'pg_class')), '') = ''

union all

select case p.prokind when 'p' then 'procedure' when 'a' then 'aggregate' else 'function' end,
       format('%I.%I(%s)', n.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid))
from pg_catalog.pg_proc as p
join pg_catalog.pg_namespace as n on n.oid = p.pronamespace
where n.nspname = 'cardinal'
  and coalesce(btrim(pg_catalog.obj_description(p.oid, 'pg_proc')), '') = ''

order by kind, name;
