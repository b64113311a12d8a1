import PostgresClient

/// A new user's first month, generated in SQL: one app in America/Sao_Paulo, 6,000 users (every tenth
/// anonymous), the five campaigns below (one per channel, each with variants v1 and v2 and a control arm,
/// conversion events "purchase" and then "upgrade" (every third user's) within 3 days, expected split
/// control 1 : v1 2 : v2 2), and about 50,000
/// events: sends, impressions and control impressions, clicks, dismissals and conversions, with exposures
/// spread over the 27 days that end three days before today (UTC).
///
/// It plants what the anomaly report looks for: about 1 % of the users of each campaign but push also log an
/// impression of another arm (`users_in_several_arms`), and every 40th user clicks a minute before the
/// impression is logged (`click_without_impression`, in the channels that check it). A fifth of the push
/// users who do not tap open the app 20 minutes after the send: the push report's influenced opens.
///
/// The data is the same on every run (`setseed`, ids derived from the row), and is inserted in one statement
/// with no `ANALYZE` afterwards: the reports meet it as they would right after a first import.
enum FreshWorkload {
    /// The app's name.
    static let appName = "saopaulo"
    /// The app's report time zone.
    static let timeZone = "America/Sao_Paulo"
    /// The campaigns and the channel of each.
    static let campaigns: [(id: String, channel: String)] = [
        ("card", "content_card"), ("iam", "in_app_message"), ("banner", "banner"), ("push", "push"),
        ("flag", "feature_flag"),
    ]

    /// Inserts the app, its campaign settings and its events.
    static func insert(into connection: PostgresConnection) throws {
        try connection.executeScript(script)
    }

    private static let script = """
        select setseed(0.2026);

        insert into cardinal.apps (name, report_time_zone) values ('\(appName)', '\(timeZone)');

        insert into cardinal.campaign_settings (app_id, campaign_id, conversion_event, conversion_window, expected_split)
        select a.app_id, c.campaign_id, 'purchase', interval '3 days', '{"control": 1, "v1": 2, "v2": 2}'::jsonb
        from cardinal.apps as a
        cross join unnest(array['card', 'iam', 'banner', 'push', 'flag']) as c (campaign_id)
        where a.name = '\(appName)';

        insert into cardinal.campaign_conversion_events (app_id, campaign_id, ordinal, conversion_event)
        select s.app_id, s.campaign_id, 2, 'upgrade'
        from cardinal.campaign_settings as s;

        -- One row per user and campaign the user is exposed to (55 %), with the user's arm and draws.
        with pairs as materialized (
            select u, k,
                   (array['card', 'iam', 'banner', 'push', 'flag'])[k] as campaign_id,
                   (array['content_card', 'in_app_message', 'banner', 'push', 'feature_flag'])[k] as channel,
                   case when r_arm < 0.2 then 'control' when r_arm < 0.6 then 'v1' else 'v2' end as arm,
                   date_trunc('day', now()) - interval '30 days' + r_time * interval '27 days' as exposed_at,
                   1 + floor(r_count * 3)::int as impressions,
                   r_click, r_dismiss, r_convert, r_other, r_session
            from (
                select u, k, random() as r_in, random() as r_arm, random() as r_time, random() as r_count,
                       random() as r_click, random() as r_dismiss, random() as r_convert, random() as r_other,
                       random() as r_session
                from generate_series(1, 6000) as u
                cross join generate_series(1, 5) as k
                order by u, k
            ) as r
            where r.r_in < 0.55
        ),
        shaped as (
            -- A send 10 minutes before exposure (a control send in the control arm).
            select p.*, 'send' as type, 0 as n, p.exposed_at - interval '10 minutes' as time, p.arm as logged_arm
            from pairs as p
            union all
            -- 1 to 3 impressions 3 minutes apart (control impressions in the control arm); push has none.
            select p.*, 'impression', i, p.exposed_at + i * interval '3 minutes', p.arm
            from pairs as p
            cross join generate_series(0, p.impressions - 1) as i
            where p.channel <> 'push'
            union all
            -- An impression of another arm an hour later: users_in_several_arms.
            select p.*, 'impression', 9, p.exposed_at + interval '1 hour', case p.arm when 'v1' then 'v2' else 'v1' end
            from pairs as p
            where p.r_other < 0.01 and p.channel <> 'push'
            union all
            -- Clicks (push: opens); every 40th user clicks before the impression: click_without_impression.
            select p.*, 'click', 0,
                   p.exposed_at + case when p.u % 40 = 0 then interval '-1 minute' else interval '5 minutes' end, p.arm
            from pairs as p
            where p.arm <> 'control' and p.r_click < case when p.channel = 'push' then 0.35 else 0.25 end
            union all
            select p.*, 'dismissal', 0, p.exposed_at + interval '7 minutes', p.arm
            from pairs as p
            where p.arm <> 'control' and p.r_dismiss < 0.15
            union all
            -- Conversions within 3 days (v1) or 2 days (control, v2), more often in v1.
            select p.*, 'conversion', 0, p.exposed_at + p.r_convert * interval '25 days', p.arm
            from pairs as p
            where p.r_convert < case p.arm when 'v1' then 0.12 else 0.08 end
            union all
            -- App opens soon after a push that was not tapped: influenced opens.
            select p.*, 'session_start', 0, p.exposed_at + interval '10 minutes', p.arm
            from pairs as p
            where p.channel = 'push' and p.r_click >= 0.35 and p.r_session < 0.2
        ),
        -- The events that name a message; the others (conversions, app opens) name none.
        typed as (
            select s.*, s.type not in ('conversion', 'session_start') as of_message
            from shaped as s
        )
        insert into cardinal.events (app_id, id, type, channel, time, received_at, user_id, device_id, session_id,
                                     campaign_id, variant_id, control, platform, sdk_version, app_version,
                                     conversion_name)
        select a.app_id,
               md5(format('%s/%s/%s/%s', s.u, s.k, s.type, s.n))::uuid,
               s.type,
               case when s.of_message then s.channel end,
               s.time,
               s.time + interval '2 seconds',
               case when s.u % 10 <> 0 then 'user-' || s.u end,
               'device-' || s.u,
               format('session-%s-%s-%s', s.u, s.k, floor(s.r_session * 2)),
               case when s.of_message then s.campaign_id end,
               case when s.of_message and s.logged_arm <> 'control' then s.logged_arm end,
               s.type in ('send', 'impression') and s.logged_arm = 'control',
               (array['ios', 'android', 'web'])[1 + s.u % 3],
               (array['6.1', '5.4', '4.0'])[1 + s.u % 3],
               '2.' || s.u % 4,
               case when s.type = 'conversion' then case when s.u % 3 = 0 then 'upgrade' else 'purchase' end end
        from typed as s
        cross join cardinal.apps as a
        where a.name = '\(appName)';
        """
}
