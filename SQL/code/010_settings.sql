-- Settings: what the settings tables drive in the reports.
--
-- touch_updated_at keeps settings.updated_at and campaign_settings.updated_at true through two triggers.
-- campaign_conversion_goals lists every campaign's conversion events by ordinal (the primary one from
-- campaign_settings, the others from campaign_conversion_events); campaign_conversion_goal_events folds them
-- into the array the report state indexes. report_window_end computes where a conversion window ends in the
-- campaign's time zone, and check_control_source is the argument rule of the control reports.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- updated_at must stay true however a row is changed (the `cardinal` command, or an operator in psql),
-- so a trigger sets it instead of trusting every writer to remember.
create or replace function cardinal.touch_updated_at()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    new.updated_at := now();
    return new;
end
$function$;
alter function cardinal.touch_updated_at() owner to cardinal_owner;
comment on function cardinal.touch_updated_at() is
    'Trigger function: sets updated_at of the row being updated to the transaction time.';


create or replace trigger settings_touch_updated_at
    before update on cardinal.settings
    for each row execute function cardinal.touch_updated_at();
comment on trigger settings_touch_updated_at on cardinal.settings is
    'Sets settings.updated_at to the time of the change on every update.';


create or replace trigger campaign_settings_touch_updated_at
    before update on cardinal.campaign_settings
    for each row execute function cardinal.touch_updated_at();
comment on trigger campaign_settings_touch_updated_at on cardinal.campaign_settings is
    'Sets campaign_settings.updated_at to the time of the change on every update.';


-- The name the report state keeps session starts under.
create or replace function cardinal.session_start_state_name()
    returns text
    language sql
    immutable
    parallel safe
as $function$
    select '$session_start'::text;
$function$;
alter function cardinal.session_start_state_name() owner to cardinal_owner;
comment on function cardinal.session_start_state_name() is
    'The conversion name under which the report state (report_conversion_state) keeps session starts: '
    '''$session_start'', which no conversion can have (conversion names may not start with $).';


create or replace view cardinal.campaign_conversion_goals as
select s.app_id, s.campaign_id, 1::smallint as ordinal, s.conversion_event, s.conversion_window
from cardinal.campaign_settings as s
where s.conversion_event is not null
union all
select c.app_id, c.campaign_id, c.ordinal, c.conversion_event, s.conversion_window
from cardinal.campaign_conversion_events as c
join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id;
alter view cardinal.campaign_conversion_goals owner to cardinal_owner;
grant select on cardinal.campaign_conversion_goals to cardinal_reader;
comment on view cardinal.campaign_conversion_goals is
    'Every conversion event of every campaign with its ordinal (1 = primary, from campaign_settings; 2..4 '
    'from campaign_conversion_events) and the campaign''s conversion window.';
comment on column cardinal.campaign_conversion_goals.app_id is 'The app the campaign belongs to.';
comment on column cardinal.campaign_conversion_goals.campaign_id is 'The campaign.';
comment on column cardinal.campaign_conversion_goals.ordinal is '1 for the primary conversion event, then 2 to 4.';
comment on column cardinal.campaign_conversion_goals.conversion_event is 'Name of the conversion event.';
comment on column cardinal.campaign_conversion_goals.conversion_window is
    'The campaign''s conversion window (campaign_settings.conversion_window).';


-- The argument rule of the functions below.
create or replace function cardinal.check_control_source(campaign text, canvas text)
    returns boolean
    language plpgsql
    immutable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if campaign is not null and canvas is not null then
        raise exception 'control report: campaign % and canvas % given together', campaign, canvas
            using errcode = 'invalid_parameter_value',
                  hint = 'A control report covers campaigns or one canvas; give one of them.';
    end if;
    return true;
end
$function$;
alter function cardinal.check_control_source(text, text) owner to cardinal_owner;
grant execute on function cardinal.check_control_source(text, text) to cardinal_reader;
comment on function cardinal.check_control_source(text, text) is
    'Argument check of control_arms, control_arms_reference and control_arm_conversions: true unless both a '
    'campaign and a canvas are given, which raises 22023.';


create or replace view cardinal.campaign_conversion_goal_events as
select g.app_id, g.campaign_id,
       array[min(g.conversion_event) filter (where g.ordinal = 1),
             min(g.conversion_event) filter (where g.ordinal = 2),
             min(g.conversion_event) filter (where g.ordinal = 3),
             min(g.conversion_event) filter (where g.ordinal = 4)] as conversion_events
from cardinal.campaign_conversion_goals as g
group by g.app_id, g.campaign_id;
alter view cardinal.campaign_conversion_goal_events owner to cardinal_owner;
grant select on cardinal.campaign_conversion_goal_events to cardinal_reader;
comment on view cardinal.campaign_conversion_goal_events is
    'Per campaign with conversion goals, their events in one array indexed by ordinal (NULL where the '
    'campaign has no goal of that ordinal): the positions of report_campaign_receipts.converted_at.';
comment on column cardinal.campaign_conversion_goal_events.app_id is 'The app the campaign belongs to.';
comment on column cardinal.campaign_conversion_goal_events.campaign_id is 'The campaign.';
comment on column cardinal.campaign_conversion_goal_events.conversion_events is
    'Element k: the conversion event of ordinal k (campaign_conversion_goals), NULL when none.';


-- The window end is written so that the planner can inline it. Adding the hours to a timestamptz would use an
-- operator that is only stable (it adds days in the session's zone), and PostgreSQL does not inline an
-- immutable function whose body is not, so every row would call it as a function (two calls per user read:
-- all campaigns of 300 k events took 365–460 ms with the calls, 189–202 ms inlined). The hours are added to
-- the UTC wall time instead, which is elapsed time there.
create or replace function cardinal.report_window_end(started_at timestamptz, window_length interval, time_zone text)
    returns timestamptz
    language sql
    immutable
    parallel safe
as $function$
    select ((((report_window_end.started_at at time zone report_window_end.time_zone)
              + date_trunc('day', report_window_end.window_length)) at time zone report_window_end.time_zone
             at time zone 'UTC')
            + (report_window_end.window_length - date_trunc('day', report_window_end.window_length)))
           at time zone 'UTC'
$function$;
alter function cardinal.report_window_end(timestamp with time zone, interval, text) owner to cardinal_owner;
grant execute on function cardinal.report_window_end(timestamp with time zone, interval, text) to cardinal_reader;
comment on function cardinal.report_window_end(timestamptz, interval, text) is
    'The end of a conversion window of window_length that starts at started_at: its months and days added on '
    'the calendar of time_zone (the campaign''s report time zone), its hours as elapsed time, as a session in '
    'that zone adds them, so that it is the same whatever the session''s TimeZone; written with immutable '
    'operators only, so that the planner inlines it.';
