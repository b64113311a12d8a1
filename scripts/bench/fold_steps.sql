-- fold_steps.sql — times each step of the report-state fold (fold_report_state) on two folds of 50,000 new
-- events each, in a freshly migrated database of its own:
--
--     createdb -h 127.0.0.1 -p 54329 -U postgres cardinal_fold_bench
--     cardinal migrate --database-url postgresql://postgres@127.0.0.1:54329/cardinal_fold_bench
--     psql -X -f scripts/bench/fold_steps.sql postgresql://postgres@127.0.0.1:54329/cardinal_fold_bench
--
-- The data. One app in UTC, 20 campaigns over the content-card, in-app, banner and push channels, 30,000
-- anonymous devices with 10 events each (300,000: sends, impressions, clicks, dismissals and conversions,
-- a third of those with a value), folded before anything is timed. Then:
--
-- * fresh: 50,000 events of 10,000 known users (user_id only), nothing to re-key;
-- * re-keyed: 50,000 events, of which one login (user_id and device_id) of a new user on each of the 30,000
--   devices, so fold_identity_links re-keys and requeues the devices' 300,000 anonymous events, which the
--   later steps fold with the 50,000.
--
-- Each fold runs its steps one by one in one REPEATABLE READ transaction under the state lock, as
-- fold_report_state does, and prints each step's seconds. Steps that a migration has not defined yet are
-- skipped, so the script times any version of the fold.

\set ON_ERROR_STOP 1
\pset pager off
set timezone = 'UTC';
set client_min_messages = notice;
select setseed(0.38);

insert into cardinal.apps (name, report_time_zone) values ('fold-bench', 'UTC');
select cardinal.ensure_event_partitions(now() - interval '30 days', now() + interval '1 day');

-- One event of a user or device; n picks its type, channel and campaign.
create function pg_temp.bench_event(n bigint, of_user text, of_device text, at timestamptz)
    returns table (app_id bigint, id uuid, type text, channel text, "time" timestamptz, user_id text,
                   device_id text, session_id text, campaign_id text, variant_id text, message_id text,
                   placement_id text, button_id text, platform text, sdk_version text, app_version text,
                   conversion_name text, value numeric, currency text)
    language sql
as $function$
    select a.app_id, gen_random_uuid(), kind.type, kind.channel, at, of_user, of_device, 's' || (n % 7),
           case when kind.type <> 'conversion' then 'c' || lpad((n % 20)::text, 2, '0') end,
           case when kind.type <> 'conversion' then 'v' || (n % 3) end,
           case when kind.type <> 'conversion' then 'm' || (n % 50) end,
           case when kind.channel = 'banner' then 'p' || (n % 5) end,
           case when kind.channel = 'in_app_message' and kind.type = 'click' then 'b' || (n % 3) end,
           (array['ios', 'android', 'web'])[1 + n % 3], '5.0.0', '1.0',
           case when kind.type = 'conversion' then 'purchase' end,
           case when kind.type = 'conversion' and n % 3 = 0 then (n % 100)::numeric end,
           case when kind.type = 'conversion' and n % 3 = 0 then 'USD' end
    from cardinal.apps as a
    cross join lateral (
        select (array['send', 'impression', 'impression', 'click', 'dismissal', 'conversion'])[1 + (n / 4) % 6] as type
    ) as t
    cross join lateral (
        select t.type,
               case when t.type <> 'conversion'
                    then (array['content_card', 'in_app_message', 'banner', 'push'])[1 + n % 4] end as channel
    ) as kind
    where a.name = 'fold-bench';
$function$;

create function pg_temp.timed_fold(label text)
    returns void
    language plpgsql
as $function$
declare
    step       text;
    started    timestamptz;
    fold_start timestamptz := clock_timestamp();
    pending    bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    select count(*) into pending from cardinal.report_unfolded_events();
    raise notice '% fold: % pending events before the identity step', label, pending;
    -- In fold_report_state's order.
    foreach step in array array['fold_identity_links', 'take_report_fold_snapshot', 'add_report_groups',
                                'fold_report_row_days',
                                'fold_report_dismissals', 'fold_report_push_sends', 'fold_report_parts',
                                'fold_report_group_rows',
                                'fold_report_control_exposures', 'fold_report_campaign_receipts',
                                'fold_report_conversion_values', 'fold_report_user_state',
                                'drop_report_fold_snapshot']
    loop
        if to_regproc('cardinal.' || step) is not null then
            started := clock_timestamp();
            execute format('select cardinal.%I()', step);
            raise notice '  % % s', rpad(step, 30),
                round(extract(epoch from clock_timestamp() - started)::numeric, 2);
        end if;
    end loop;
    raise notice '  % % s', rpad('total', 30), round(extract(epoch from clock_timestamp() - fold_start)::numeric, 2);
end
$function$;

-- The folded past: 30,000 devices × 10 anonymous events.
insert into cardinal.events (app_id, id, type, channel, time, user_id, device_id, session_id, campaign_id, variant_id, message_id,
                     placement_id, button_id, platform, sdk_version, app_version, conversion_name, value, currency)
select e.*
from generate_series(0, 299999) as n
cross join lateral pg_temp.bench_event(n, null, 'd' || (n % 30000), now() - interval '20 days' + n * interval '4 s') as e;

begin isolation level repeatable read;
select cardinal.fold_report_state() as folded_past;
commit;
vacuum analyze cardinal.events;

-- Fresh: 50,000 events of 10,000 known users.
insert into cardinal.events (app_id, id, type, channel, time, user_id, device_id, session_id, campaign_id, variant_id, message_id,
                     placement_id, button_id, platform, sdk_version, app_version, conversion_name, value, currency)
select e.*
from generate_series(0, 49999) as n
cross join lateral pg_temp.bench_event(n, 'u' || (n % 10000), null, now() - interval '2 days' + n * interval '1 s') as e;

begin isolation level repeatable read;
-- As fold_report_state, whose owner runs the steps.
set local role cardinal_owner;
select pg_temp.timed_fold('fresh');
commit;

-- Re-keyed: a new user logs in on each device (an impression carrying both ids), and 20,000 more events.
insert into cardinal.events (app_id, id, type, channel, time, user_id, device_id, session_id, campaign_id, variant_id, message_id,
                     placement_id, button_id, platform, sdk_version, app_version, conversion_name, value, currency)
select e.*
from generate_series(0, 29999) as n
cross join lateral pg_temp.bench_event(4, 'new' || n, 'd' || n, now() - interval '1 day' + n * interval '1 s') as e;
insert into cardinal.events (app_id, id, type, channel, time, user_id, device_id, session_id, campaign_id, variant_id, message_id,
                     placement_id, button_id, platform, sdk_version, app_version, conversion_name, value, currency)
select e.*
from generate_series(0, 19999) as n
cross join lateral pg_temp.bench_event(n, 'u' || (n % 10000), null, now() - interval '1 day' + n * interval '1 s') as e;

begin isolation level repeatable read;
-- As fold_report_state, whose owner runs the steps.
set local role cardinal_owner;
select pg_temp.timed_fold('re-keyed');
commit;
