-- Push action buttons split with `--by button_id` (issue 44). A push click now has a message part, its
-- button_id ('' for a tap on the notification's body), as an in-app message click has: the fold keeps it in
-- report_part_state, and unique_impressions by button_id splits push rows by button. The code files define the
-- new report_part_channels (a breakdown can split two channels) and the open columns' new argument (a row split
-- by button takes its total opens from the whole message); the old signatures go here.
--
-- The push clicks folded before this migration have no report_part_state rows: this adds them, from the
-- folded events as the fold would have counted them (the user key by today's identity links, the report day
-- in the campaign's time zone, the report group the fold created). The clicks still pending are left to the
-- next fold, which counts them itself. A fresh install holds no events and skips it.

drop function if exists cardinal.report_part_channel(text);
drop function if exists cardinal.unique_impressions_open_columns(text, bigint, bigint, bigint, bigint);

do $migration$
begin
    if not exists (select from cardinal.events where channel = 'push' and type = 'click') then
        return;
    end if;

    insert into cardinal.report_part_state as p (group_id, user_key, part, day, impressions, clicks, dismissals,
                                                 sends)
    select g.group_id, e.user_key, coalesce(e.button_id, ''), local.day, 0, count(*), 0, 0
    from cardinal.identified_events as e
    join cardinal.apps as a on a.app_id = e.app_id
    left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
    cross join lateral (
        select (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
    ) as local
    -- '' stands for NULL, as in the fold.
    join cardinal.report_groups as g
        on g.app_id = e.app_id
       and coalesce(g.campaign_id, '') = coalesce(e.campaign_id, '')
       and coalesce(g.canvas_id, '') = coalesce(e.canvas_id, '')
       and coalesce(g.canvas_step_id, '') = coalesce(e.canvas_step_id, '')
       and coalesce(g.variant_id, '') = coalesce(e.variant_id, '')
       and g.channel = e.channel
       and coalesce(g.platform, '') = coalesce(e.platform, '')
       and coalesce(g.sdk_version, '') = coalesce(e.sdk_version, '')
       and coalesce(g.app_version, '') = coalesce(e.app_version, '')
       and g.test = e.test
    where e.channel = 'push'
      and e.type = 'click'
      and not e.control
      and (e.campaign_id is not null or e.canvas_step_id is not null)
      and (e.app_id, e.id) not in (select u.app_id, u.id from cardinal.report_unfolded_events_full() as u
                                   where u.channel = 'push' and u.type = 'click')
    group by 1, 2, 3, 4
    on conflict (group_id, user_key, part, day) do update set clicks = p.clicks + excluded.clicks;
end
$migration$;
