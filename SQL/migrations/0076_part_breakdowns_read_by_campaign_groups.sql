-- 0076_part_breakdowns_read_by_campaign_groups.sql — the unique-impressions breakdowns by message part
-- (button_id, placement_id, message_id) read one campaign's folded part rows by its report groups, and plan
-- their raw-event reference only when it runs (issue 8).
--
-- Design notes (why, not what):
--
-- * `unique_impressions … by => 'message_id'` for one content-card campaign of the 10 M reports bench (c10,
--   116,388 part rows of 144 report groups in the range) took 1.2–1.5 s in psql: report_part_facts was joined
--   to the app's report groups by hash, which reads every folded part row of the app (a sequential scan of
--   2,017,217 rows, 0.2 s) for a campaign's 6 %, and sorted the 116,388 rows by nine text columns to group
--   them (0.4 s). The folded rows of one campaign are now read by its groups' ids, the first column of
--   report_part_state's key, as the anomalies read a campaign's dismissals (0042), and the aggregates hash
--   (0053) instead of sorting: the distinct users of a part are counted from one row per user and part.
--   Measured in psql on that state (median of two, with a seed running on the other core), before and after:
--   one in-app message campaign by button_id 280 → 45 ms, one banner campaign by placement_id 910 → 495 ms,
--   every campaign by placement_id 7.4 → 4.5 s and by button_id 1.18 → 0.74 s, the same rows. c10 by
--   message_id stays at 1.3 s: the bench gives its cards 90,385 message ids, so its 116,388 rows make as many
--   report rows, which the hash aggregates and the report's ORDER BY (text keys in the database's collation)
--   take the time of.
--
-- * The function was inlined into its callers, so each call also planned its reference side: a scan of
--   identified_events over every events partition, and unique_impressions_reference_of_0029, itself inlined.
--   As in 0075, the raw events are read through a function with a SET clause, which is never inlined and so
--   is planned only when the executor calls it (never for the state: `not from_state` is a one-time filter
--   above the call), and unique_impressions_reference_of_0029 gets a SET clause for the same reason.
--
-- * Rows, arguments and return types are 0031's; the body is 0031's as 0032 rewrote it (identified_events for
--   events), apart from part_days and the settings.


-- The raw part rows of one app that unique_impressions_by_part reads for its reference: events per row, part,
-- user and report day of the split channel, not control, from the raw events.
create function cardinal.unique_impressions_reference_part_days(
    app_id           bigint,
    app_name         text,
    report_time_zone text,
    split_channel    text,
    from_date        date,
    to_date          date,
    include_test     boolean,
    campaign         text
)
    returns table (
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        variant_id     text,
        channel        text,
        part           text,
        user_key       text,
        day            date,
        impressions    bigint,
        clicks         bigint,
        dismissals     bigint,
        sends          bigint
    )
    language sql
    stable
    -- The SET clause keeps the function from being inlined into its caller's plan (see the notes): jit off as
    -- every report.
    set jit = off
as $function$
    select unique_impressions_reference_part_days.app_name, e.campaign_id, e.canvas_id, e.canvas_step_id,
           e.variant_id, e.channel,
           cardinal.report_message_part(e.channel, e.type, e.message_id, e.placement_id, e.button_id),
           e.user_key, local.day,
           count(*) filter (where e.type = 'impression'), count(*) filter (where e.type = 'click'),
           count(*) filter (where e.type = 'dismissal'), count(*) filter (where e.type = 'send')
    from cardinal.identified_events as e
    left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
    cross join lateral (
        select (e.time at time zone coalesce(s.report_time_zone,
                                             unique_impressions_reference_part_days.report_time_zone))::date
                   as day
    ) as local
    where e.app_id = unique_impressions_reference_part_days.app_id
      and e.channel = unique_impressions_reference_part_days.split_channel
      and (e.campaign_id is not null or e.canvas_step_id is not null)
      and (unique_impressions_reference_part_days.campaign is null
           or e.campaign_id = unique_impressions_reference_part_days.campaign)
      and e.type in ('send', 'impression', 'click', 'dismissal')
      and cardinal.report_message_part(e.channel, e.type, '', '', '') is not null
      and not e.control
      and (unique_impressions_reference_part_days.include_test or not e.test)
      and e.time >= (unique_impressions_reference_part_days.from_date - 1)::timestamp at time zone 'UTC'
      and e.time < (unique_impressions_reference_part_days.to_date + 2)::timestamp at time zone 'UTC'
      and local.day between unique_impressions_reference_part_days.from_date
                        and unique_impressions_reference_part_days.to_date
    group by 1, 2, 3, 4, 5, 6, 7, 8, 9;
$function$;
alter function cardinal.unique_impressions_reference_part_days(bigint, text, text, text, date, date, boolean, text)
    owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_reference_part_days(bigint, text, text, text, date, date,
                                                                         boolean, text)
    to cardinal_reader;
comment on function cardinal.unique_impressions_reference_part_days(bigint, text, text, text, date, date, boolean,
                                                                   text) is
    'The raw source of unique_impressions_by_part for unique_impressions_reference (0076): events (sends, '
    'impressions, clicks, dismissals, not control) per row, message part, user and report day of one app''s '
    'split channel, the day in the campaign''s report time zone or the app''s, narrowed to a campaign when '
    'given and without test events unless include_test. Not inlined, so that the report state''s path does '
    'not plan it.';


-- Planned only when unique_impressions_by_part's reference side runs (see the notes).
alter function cardinal.unique_impressions_reference_of_0029(text, date, date, boolean, text, text) set jit = off;


-- 0031's unique_impressions_by_part (as 0032 made it) with part_days read as the notes say.
create or replace function cardinal.unique_impressions_by_part(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    by           text,
    from_state   boolean
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
    -- Hash every aggregate and join whatever the estimates (0053); jit off as every report.
    set enable_sort = off
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone,
               cardinal.report_part_channel(unique_impressions_by_part.by) as split_channel
        from cardinal.apps as a
        where cardinal.check_report_range(unique_impressions_by_part.from_date, unique_impressions_by_part.to_date)
          and cardinal.report_part_channel(unique_impressions_by_part.by) is not null
          and (unique_impressions_by_part.app is null or a.name = unique_impressions_by_part.app)
    ),
    -- The report groups of the one campaign asked for (none when it is not), whose folded rows are read by
    -- report_part_state's key rather than by a scan of every part row of the app.
    campaign_groups as materialized (
        select array(
                   select g.group_id
                   from cardinal.report_groups as g
                   join target as t on t.app_id = g.app_id and t.split_channel = g.channel
                   where unique_impressions_by_part.campaign is not null
                     and g.campaign_id = unique_impressions_by_part.campaign
                     and (unique_impressions_by_part.include_test or not g.test)
               ) as group_ids
    ),
    -- Events per row, part, user and day of the split channel: report_part_facts' two sides (the folded rows,
    -- of the app or of the campaign's groups, and the pending events'), or the raw events (the reference),
    -- read through a function that is planned only when the reference runs.
    part_days as (
        select t.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, p.part,
               p.user_key, p.day, p.impressions, p.clicks, p.dismissals, p.sends
        from target as t
        join cardinal.report_groups as g on g.app_id = t.app_id and g.channel = t.split_channel
        join cardinal.report_part_state as p on p.group_id = g.group_id
        where unique_impressions_by_part.from_state and unique_impressions_by_part.campaign is null
          and (unique_impressions_by_part.include_test or not g.test)
          and p.day between unique_impressions_by_part.from_date and unique_impressions_by_part.to_date
        union all
        select t.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, p.part,
               p.user_key, p.day, p.impressions, p.clicks, p.dismissals, p.sends
        from target as t
        join cardinal.report_groups as g on g.app_id = t.app_id and g.channel = t.split_channel
        join cardinal.report_part_state as p on p.group_id = g.group_id
        where unique_impressions_by_part.from_state
          and p.group_id = any((select c.group_ids from campaign_groups as c)::bigint[])
          and p.day between unique_impressions_by_part.from_date and unique_impressions_by_part.to_date
        union all
        select t.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.variant_id, f.channel, f.part,
               f.user_key, f.day, f.impressions, f.clicks, f.dismissals, f.sends
        from target as t
        join cardinal.report_pending_part_facts as f on f.app_id = t.app_id and f.channel = t.split_channel
        where unique_impressions_by_part.from_state
          and (unique_impressions_by_part.include_test or not f.test)
          and (unique_impressions_by_part.campaign is null or f.campaign_id = unique_impressions_by_part.campaign)
          and f.day between unique_impressions_by_part.from_date and unique_impressions_by_part.to_date
        union all
        select r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id, r.channel, r.part,
               r.user_key, r.day, r.impressions, r.clicks, r.dismissals, r.sends
        from target as t
        cross join lateral cardinal.unique_impressions_reference_part_days(
            t.app_id, t.app_name, t.report_time_zone, t.split_channel, unique_impressions_by_part.from_date,
            unique_impressions_by_part.to_date, unique_impressions_by_part.include_test,
            unique_impressions_by_part.campaign
        ) as r
        where not unique_impressions_by_part.from_state
    ),
    -- The same user and day can come from several groups (platforms, test or not) and from both the folded
    -- and the unfolded side: one (user, day) per part first.
    user_days as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, part, user_key, day,
               sum(impressions) as impressions, sum(clicks) as clicks, sum(dismissals) as dismissals,
               sum(sends) as sends
        from part_days
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    -- Then per user and part, so that the part's distinct users are rows to count and every aggregate hashes
    -- (a distinct aggregate sorts its input).
    part_users as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, nullif(part, '') as breakdown,
               user_key,
               sum(impressions) as impressions,
               count(*) filter (where impressions > 0) as impression_days,
               count(*) filter (
                   where case when channel in ('content_card', 'in_app_message') then impressions > 0
                              else sends > 0 end
               ) as recipient_days,
               sum(clicks) as clicks,
               sum(dismissals) as dismissals
        from user_days
        group by 1, 2, 3, 4, 5, 6, 7, 8
    ),
    parts as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
               sum(impressions)::bigint as impressions,
               count(*) filter (where impression_days > 0) as unique_impressions,
               sum(impression_days)::bigint as unique_daily_impressions,
               sum(recipient_days)::bigint as unique_recipients,
               sum(clicks)::bigint as clicks,
               count(*) filter (where clicks > 0) as unique_clicks,
               sum(dismissals)::bigint as dismissals,
               count(*) filter (where dismissals > 0) as unique_dismissals
        from part_users
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- The whole rows: the report without a breakdown, from the same side (its first 19 columns).
    totals as (
        select w.app_name, w.campaign_id, w.canvas_id, w.canvas_step_id, w.variant_id, w.channel, w.breakdown,
               w.impressions, w.unique_impressions, w.unique_daily_impressions, w.unique_recipients, w.clicks,
               w.unique_clicks, w.dismissals, w.unique_dismissals
        from cardinal.unique_impressions_of_0025(unique_impressions_by_part.app, unique_impressions_by_part.from_date,
                                                 unique_impressions_by_part.to_date,
                                                 unique_impressions_by_part.include_test,
                                                 unique_impressions_by_part.campaign) as w
        where unique_impressions_by_part.from_state
        union all
        select w.app_name, w.campaign_id, w.canvas_id, w.canvas_step_id, w.variant_id, w.channel, w.breakdown,
               w.impressions, w.unique_impressions, w.unique_daily_impressions, w.unique_recipients, w.clicks,
               w.unique_clicks, w.dismissals, w.unique_dismissals
        from cardinal.unique_impressions_reference_of_0029(
                 unique_impressions_by_part.app, unique_impressions_by_part.from_date,
                 unique_impressions_by_part.to_date, unique_impressions_by_part.include_test,
                 unique_impressions_by_part.campaign) as w
        where not unique_impressions_by_part.from_state
    ),
    counted as (
        -- Channels the breakdown does not split, whole.
        select t.app_name, t.campaign_id, t.canvas_id, t.canvas_step_id, t.variant_id, t.channel, t.breakdown,
               t.impressions, t.unique_impressions, t.unique_daily_impressions, t.unique_recipients,
               t.clicks, t.unique_clicks, t.dismissals, t.unique_dismissals
        from totals as t
        where t.channel <> cardinal.report_part_channel(unique_impressions_by_part.by)
        union all
        -- Cards and placements, every column per part.
        select p.app_name, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.breakdown,
               p.impressions, p.unique_impressions, p.unique_daily_impressions, p.unique_recipients,
               p.clicks, p.unique_clicks, p.dismissals, p.unique_dismissals
        from parts as p
        where p.channel <> 'in_app_message'
        union all
        -- In-app messages: the message's figures, its clicks per button (a row with none when none).
        select t.app_name, t.campaign_id, t.canvas_id, t.canvas_step_id, t.variant_id, t.channel,
               b.breakdown, t.impressions, t.unique_impressions, t.unique_daily_impressions, t.unique_recipients,
               coalesce(b.clicks, 0), coalesce(b.unique_clicks, 0), t.dismissals, t.unique_dismissals
        from totals as t
        left join parts as b
            on b.app_name = t.app_name
           and coalesce(b.campaign_id, '') = coalesce(t.campaign_id, '')
           and coalesce(b.canvas_id, '') = coalesce(t.canvas_id, '')
           and coalesce(b.canvas_step_id, '') = coalesce(t.canvas_step_id, '')
           and coalesce(b.variant_id, '') = coalesce(t.variant_id, '')
           and b.channel = t.channel
        where t.channel = 'in_app_message' and unique_impressions_by_part.by = 'button_id'
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
comment on function cardinal.unique_impressions_by_part(text, date, date, boolean, text, text, boolean) is
    'unique_impressions by button_id, placement_id or message_id (0031), from the report state (from_state, '
    'report_part_facts: one campaign''s folded rows by its report groups, 0076) or from the raw events (not '
    'from_state, for unique_impressions_reference, through unique_impressions_reference_part_days): the '
    'channel the breakdown splits gets a row per part (in-app messages: per button clicked, each repeating '
    'the message''s impressions and dismissals), the other channels one row with breakdown NULL.';
