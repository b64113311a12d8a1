-- uncommented_columns.sql — every column in schema cardinal that has no COMMENT.
--
-- DESIGN.md wants \d+ to explain every table; this query is the test of that rule: after the migrations
-- it must return no row. It covers tables, partitioned tables and their partitions (ensure_event_partitions
-- copies the column comments), views, materialized views and foreign tables; index columns are not
-- columns a user reads. A comment that is only whitespace counts as missing.
--
-- Returns: relation (schema-qualified, quoted where needed), column_name; ordered.

select format('%I.%I', n.nspname, c.relname) as relation,
       a.attname::text                       as column_name
from pg_catalog.pg_class as c
join pg_catalog.pg_namespace as n on n.oid = c.relnamespace
join pg_catalog.pg_attribute as a on a.attrelid = c.oid
where n.nspname = 'cardinal'
  and c.relkind in ('r', 'p', 'v', 'm', 'f')
  and a.attnum > 0
  and not a.attisdropped
  and coalesce(btrim(pg_catalog.col_description(c.oid, a.attnum)), '') = ''
order by relation, a.attnum;
