-- 0001_roles.sql — Cardinal's three group roles.
--
-- The roles are NOLOGIN groups: nobody connects as them. Operators create login roles and grant the
-- groups to them, e.g.
--     create role cardinald login password '…' in role cardinal_ingest;
--     create role analyst   login password '…' in role cardinal_reader;
--     create role cardinal  login password '…' in role cardinal_owner;   -- runs `cardinal` and migrations
-- so that passwords, connection limits and rotation stay the operators' business.
--
-- Roles are global to the cluster while migrations run per database, so several databases of the same
-- cluster may run this file at the same moment. Each role is therefore created only when missing, and a
-- concurrent creator is tolerated: the loser of the race gets duplicate_object (the winner had committed
-- before our check) or unique_violation (the winner had not committed yet, so the unique index on
-- pg_authid made us wait and then failed). The role's comment is set in the same protected block, only by
-- the transaction that created the role, because two concurrent COMMENT ON ROLE would race on the shared
-- catalog pg_shdescription. An existing role is never altered: an operator may have tuned it.

do $roles$
declare
    wanted record;
begin
    for wanted in
        select *
        from (values
            ('cardinal_owner',
             'Cardinal: owns the schema cardinal and everything in it; used for migrations and by the '
             'cardinal command. NOLOGIN group role: grant it to a login role.'),
            ('cardinal_ingest',
             'Cardinal: the ingest daemon cardinald; inserts events and rejected events, reads apps, ingest '
             'keys and settings, never reads stored events. NOLOGIN group role: grant it to a login role.'),
            ('cardinal_reader',
             'Cardinal: analysts, dashboards and report readers; selects every table and view of the schema '
             'cardinal except ingest key hashes, writes nothing. NOLOGIN group role: grant it to a login role.')
        ) as role_list (name, description)
    loop
        if not exists (select from pg_catalog.pg_roles where rolname = wanted.name) then
            begin
                execute format('create role %I nologin', wanted.name);
                execute format('comment on role %I is %L', wanted.name, wanted.description);
            exception
                when duplicate_object or unique_violation then
                    -- Another database's migration created the role first; it is the same role.
                    null;
            end;
        elsif exists (select from pg_catalog.pg_roles where rolname = wanted.name and rolcanlogin) then
            -- Not fatal, the grants work either way, but a login-capable group role is usually a mistake.
            raise warning 'role % can log in; Cardinal expects a NOLOGIN group role granted to login roles',
                wanted.name;
        end if;
    end loop;
end
$roles$;
