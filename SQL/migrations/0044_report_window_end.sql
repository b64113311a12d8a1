-- 0044_report_window_end.sql — a conversion window ends at the same local time in the campaign's report time
-- zone, whatever the session's TimeZone (issue 8).
--
-- Design notes (why, not what):
--
-- * The reports added a window to a timestamptz (`first_received_at + conversion_window`), and PostgreSQL adds
--   the days and months of an interval in the session's TimeZone: across a daylight-saving change a 3-day
--   window lasts 71 or 73 hours in one session and 72 in another. The CLI sets no TimeZone, so a report's
--   converters depended on the server's configuration and on the psql user's settings.
--
-- * report_window_end(start, window, zone) adds the window as PostgreSQL adds it in a session whose TimeZone
--   is the campaign's report time zone, the zone its report days already are in: the months and days on the
--   local calendar ("3 days" ends three local days later at the same local time), the hours after them as
--   elapsed time ("24 hours" is 24 hours). That is what a marketer who set the window means, and it makes
--   "converted within the window" a fact of the event times and the campaign's settings alone, so that
--   report state can count it ahead of the report (counts per day need it). A local end that falls in a
--   skipped hour resolves as `at time zone` resolves it, the same way every time.
--
-- * A plain, immutable SQL function: the planner inlines it into the reports' queries.


create function cardinal.report_window_end(started_at timestamptz, window_length interval, time_zone text)
    returns timestamptz
    language sql
    immutable
    parallel safe
as $function$
    select ((report_window_end.started_at at time zone report_window_end.time_zone)
            + date_trunc('day', report_window_end.window_length)) at time zone report_window_end.time_zone
           + (report_window_end.window_length - date_trunc('day', report_window_end.window_length))
$function$;

alter function cardinal.report_window_end(timestamptz, interval, text) owner to cardinal_owner;

grant execute on function cardinal.report_window_end(timestamptz, interval, text) to cardinal_reader;

comment on function cardinal.report_window_end(timestamptz, interval, text) is
    'The end of a conversion window of window_length that starts at started_at: its months and days added on '
    'the calendar of time_zone (the campaign''s report time zone), its hours as elapsed time, as a session in '
    'that zone adds them, so that it is the same whatever the session''s TimeZone (0044).';
