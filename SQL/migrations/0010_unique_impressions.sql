-- 0010_unique_impressions.sql — the unique-impressions report as a function psql users call directly:
--
--     select * from cardinal.unique_impressions('shop', '2026-11-01', '2026-11-30');
--     select * from cardinal.unique_impressions('shop', '2026-11-01', '2026-11-30', by => 'day');
--
-- `cardinal report unique-impressions` runs exactly this function; there is no second implementation.
--
-- Definitions (issue 4, DOMAIN.md):
--   * A user is events.user_key: user_id when known, else 'device:' || device_id. One user on two devices
--     is one user; an anonymous event and a later identified event of the same device are two users, as
--     there is no identity stitching in v1.
--   * A report day is a calendar day in the campaign's report time zone (campaign_settings, else the app's
--     apps.report_time_zone, else UTC). from_date and to_date are report days, both included, so the range
--     of event time is [from_date 00:00, to_date + 1 00:00) in that zone; it differs per campaign.
--   * Test events are left out unless include_test. Control events (control impressions and control
--     sends) are left out entirely: control users get no message, so they have no impressions, are no
--     recipients, and their clicks cannot exist.
--   * unique_impressions counts each user once over the whole range, for every channel, as the issue
--     defines it. Braze counts an in-app message user again on each new calendar day: that figure is
--     unique_daily_impressions, which this report always shows next to it, so both readings are there
--     and neither is hidden in a per-channel rule.
--   * unique_recipients sums, over report days, the users who received the message that day: for content
--     cards and in-app messages receiving is seeing (an impression), for every other channel it is a send.
--
-- The scan. Each campaign has its own time zone, so the exact range is only known per row; the scan first
-- takes every event between from_date − 1 day and to_date + 2 days in UTC (no zone is more than 14 hours
-- from UTC) — a constant range, so only the monthly partitions that can hold rows are scanned — and then
-- keeps the rows whose report day lies in the range. Canvas-step messages have no campaign_id and are not
-- in the partial index events_campaign_idx, so the whole-app report reads the partitions through the
-- primary key's (app_id, time) prefix or sequentially (see SQL/explain/); with `campaign` given, the scan
-- is an index scan of events_campaign_idx.

create function cardinal.unique_impressions(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns table (
        app_name                 text,
        campaign_id              text,
        canvas_id                text,
        canvas_step_id           text,
        variant_id               text,
        channel                  text,
        breakdown                text,
        impressions              bigint,
        unique_impressions       bigint,
        unique_daily_impressions bigint,
        unique_recipients        bigint,
        clicks                   bigint,
        unique_clicks            bigint,
        dismissals               bigint,
        unique_dismissals        bigint,
        click_rate               double precision,
        unique_click_rate        double precision,
        dismissal_rate           double precision,
        unique_dismissal_rate    double precision
    )
    language sql
    stable
as $function$
    with scoped as (
        select a.name as app_name,
               e.campaign_id,
               e.canvas_id,
               e.canvas_step_id,
               e.variant_id,
               e.channel,
               e.type,
               e.user_key,
               local.day,
               case unique_impressions.by
                   when 'day' then to_char(local.day, 'YYYY-MM-DD')
                   when 'platform' then e.platform
                   when 'sdk_version' then e.sdk_version
                   when 'app_version' then e.app_version
               end as breakdown
        from cardinal.apps as a
        join cardinal.events as e on e.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where cardinal.check_report_range(unique_impressions.from_date, unique_impressions.to_date)
          and cardinal.check_report_dimension(unique_impressions.by)
          and (unique_impressions.app is null or a.name = unique_impressions.app)
          and (e.campaign_id is not null or e.canvas_step_id is not null)
          and (unique_impressions.campaign is null or e.campaign_id = unique_impressions.campaign)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and not e.control
          and (unique_impressions.include_test or not e.test)
          and e.time >= (unique_impressions.from_date - 1)::timestamp at time zone 'UTC'
          and e.time < (unique_impressions.to_date + 2)::timestamp at time zone 'UTC'
          and local.day between unique_impressions.from_date and unique_impressions.to_date
    ),
    counted as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
               count(*) filter (where type = 'impression') as impressions,
               count(distinct user_key) filter (where type = 'impression') as unique_impressions,
               -- (day, user) pairs: the sum over days of each day's distinct users.
               count(distinct (day, user_key)) filter (where type = 'impression') as unique_daily_impressions,
               count(distinct (day, user_key)) filter (
                   where case when channel in ('content_card', 'in_app_message') then type = 'impression'
                              else type = 'send' end
               ) as unique_recipients,
               count(*) filter (where type = 'click') as clicks,
               count(distinct user_key) filter (where type = 'click') as unique_clicks,
               count(*) filter (where type = 'dismissal') as dismissals,
               count(distinct user_key) filter (where type = 'dismissal') as unique_dismissals
        from scoped
        group by app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown
    )
    select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
           impressions, unique_impressions, unique_daily_impressions, unique_recipients,
           clicks, unique_clicks, dismissals, unique_dismissals,
           clicks::double precision / nullif(impressions, 0),
           unique_clicks::double precision / nullif(unique_impressions, 0),
           dismissals::double precision / nullif(impressions, 0),
           unique_dismissals::double precision / nullif(unique_impressions, 0)
    from counted
    order by app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown;
$function$;

alter function cardinal.unique_impressions(text, date, date, boolean, text, text) owner to cardinal_owner;

grant execute on function cardinal.unique_impressions(text, date, date, boolean, text, text) to cardinal_reader;

comment on function cardinal.unique_impressions(text, date, date, boolean, text, text) is
    'Unique-impressions report: one row per app × campaign (or canvas step) × variant × channel (× the '
    'breakdown: by => day, platform, sdk_version or app_version) over the report days from_date..to_date '
    '(both included) in each campaign''s report time zone. app NULL = every app; campaign NULL = every '
    'campaign and canvas step. Users are user_key; control and (unless include_test) test events are left '
    'out. unique_impressions counts a user once in the range, unique_daily_impressions once per day; rates '
    'are NULL when their divisor is 0. See SQL/migrations/0010_unique_impressions.sql for the definitions.';
