-- 0026_dashboard_reads.sql — what the Grafana dashboards (Dashboards/) read besides the report functions and
-- the stored runs: the daily counts of the report state with the app's name, and the Wilson interval of a
-- rate (issue 11).
--
-- Why a view: the Engagement, Integration health and Reports dashboards all chart events per report day by
-- campaign, variant, platform or SDK version. report_daily_count_facts has them per report group and day
-- (a few hundred thousand rows at 10 M events, growing with groups × days, not with events), but knows the
-- app by its id only, and a dashboard filters by name. Joining apps in every panel would repeat the same
-- lines six times; the view says it once, and psql users get it too.
--
-- Why a function: the Experiments dashboard shows each arm's conversion rate with its 95 % interval. The
-- stored control report keeps users and converters per arm but intervals only for the comparisons, and the
-- report pages draw Wilson intervals (Sources/CardinalReports/Statistics/NewcombeInterval.swift), so the
-- dashboard uses the same formula, in SQL.


create view cardinal.daily_message_counts as
select a.name as app_name, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id, f.variant_id, f.channel,
       f.platform, f.sdk_version, f.app_version, f.test, f.day, f.impressions, f.clicks, f.dismissals, f.sends,
       f.control_impressions, f.control_sends
from cardinal.report_daily_count_facts as f
join cardinal.apps as a on a.app_id = f.app_id;

alter view cardinal.daily_message_counts owner to cardinal_owner;

comment on view cardinal.daily_message_counts is
    'Events per app, message source, variant, channel, platform, SDK version, app version, test flag and report '
    'day, by kind, with the app''s name: report_daily_count_facts (the folded report state and the events not '
    'folded yet) for dashboards and psql. A report group can have two rows for one day (folded and not yet '
    'folded): sum them.';
comment on column cardinal.daily_message_counts.app_name is 'Name of the app (apps.name).';
comment on column cardinal.daily_message_counts.app_id is 'The app (apps.app_id).';
comment on column cardinal.daily_message_counts.campaign_id is 'Campaign of the events; NULL for canvas steps and events of no campaign.';
comment on column cardinal.daily_message_counts.canvas_id is 'Canvas of the events; NULL for campaigns.';
comment on column cardinal.daily_message_counts.canvas_step_id is 'Canvas step of the events; NULL for campaigns.';
comment on column cardinal.daily_message_counts.variant_id is 'Variant of the events as sent (control events included).';
comment on column cardinal.daily_message_counts.channel is 'Channel of the events.';
comment on column cardinal.daily_message_counts.platform is 'Platform of the events, NULL when not sent.';
comment on column cardinal.daily_message_counts.sdk_version is 'SDK version of the events, NULL when not sent.';
comment on column cardinal.daily_message_counts.app_version is 'App version of the events, NULL when not sent.';
comment on column cardinal.daily_message_counts.test is 'Whether the events are test events.';
comment on column cardinal.daily_message_counts.day is
    'Report day: calendar day of the event time in the campaign''s report time zone (else the app''s).';
comment on column cardinal.daily_message_counts.impressions is 'Impression events (control impressions excluded).';
comment on column cardinal.daily_message_counts.clicks is 'Click events.';
comment on column cardinal.daily_message_counts.dismissals is 'Dismissal events.';
comment on column cardinal.daily_message_counts.sends is 'Send events (control sends excluded).';
comment on column cardinal.daily_message_counts.control_impressions is 'Control impressions (control: true).';
comment on column cardinal.daily_message_counts.control_sends is 'Control sends (control: true).';

grant select on cardinal.daily_message_counts to cardinal_reader;


-- (x + z²/2)/(n + z²) ± z·√n/(n + z²) · √(p̂(1 − p̂) + z²/(4n)), clamped to [0, 1] as the Swift code does
-- (rounding can push a bound out by an ulp at x = 0 or x = n). PL/pgSQL rather than SQL: an inlined SQL
-- function with constant arguments is folded while it is planned, and would divide by a zero trials there
-- whatever guard surrounds the division.
create function cardinal.wilson_interval(
    successes bigint,
    trials    bigint,
    z         double precision default 1.959963984540054,
    out lower double precision,
    out upper double precision
)
    language plpgsql
    immutable
    parallel safe
    set search_path = pg_catalog, pg_temp
as $function$
declare
    n          constant double precision := trials;
    rate       double precision;
    center     double precision;
    half_width double precision;
begin
    if trials is null or successes is null or z is null or trials <= 0 or successes < 0 or successes > trials then
        return;
    end if;
    rate := successes / n;
    center := (successes + z * z / 2) / (n + z * z);
    half_width := z * sqrt(n) / (n + z * z) * sqrt(rate * (1 - rate) + z * z / (4 * n));
    lower := greatest(0, center - half_width);
    upper := least(1, center + half_width);
end
$function$;

alter function cardinal.wilson_interval(bigint, bigint, double precision) owner to cardinal_owner;

comment on function cardinal.wilson_interval(bigint, bigint, double precision) is
    'Wilson score interval (no continuity correction) of the proportion successes / trials, by default 95 % '
    '(z = 1.959964): the interval the report pages draw for a rate. NULL bounds when trials is 0 or NULL or '
    'successes is not between 0 and trials.';

grant execute on function cardinal.wilson_interval(bigint, bigint, double precision) to cardinal_reader;
