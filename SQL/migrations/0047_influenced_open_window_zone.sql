-- 0047_influenced_open_window_zone.sql — an influenced open's window ends on the campaign's clock, as the
-- conversion windows do (0044).
--
-- Design notes (why, not what):
--
-- * push_opens and push_opens_reference counted an app open as influenced when it came at most
--   influenced_open_window after a send, adding the window in the session's TimeZone: a window of '1 day'
--   across a daylight-saving change lasted 23, 24 or 25 hours depending on the server's configuration and the
--   psql user's settings. Both now end it with report_window_end in the campaign's report time zone (the zone
--   the rows' report days are in), so the report no longer depends on the session. Windows in hours (the
--   default 12 hours) end where they ended before.
--
-- * The functions keep their bodies: each is rewritten in place (as 0042 did), and the migration stops if a
--   body does not read the way it expects.


do $window_zone$
declare
    report record;
    definition text;
begin
    for report in
        select *
        from (values
            ('cardinal.push_opens'::regproc, 'sent.at', 's.at'),
            ('cardinal.push_opens_reference'::regproc, 'e.time', 's.time')
        ) as r (function, sent_at, send_time)
    loop
        definition := pg_catalog.pg_get_functiondef(report.function);
        if regexp_count(definition, '\mwindow_length\M') <> 2
           or strpos(definition, 'coalesce(s.influenced_open_window, interval ''12 hours'') as window_length') = 0
           or strpos(definition, report.send_time || ' + s.window_length') = 0 then
            raise exception '0047: % does not add the influenced-open window the way this migration expects',
                report.function;
        end if;
        definition := replace(
            definition,
            'coalesce(s.influenced_open_window, interval ''12 hours'') as window_length',
            format('cardinal.report_window_end(%s, coalesce(s.influenced_open_window, interval ''12 hours''), '
                   'coalesce(s.report_time_zone, a.report_time_zone)) as window_end', report.sent_at)
        );
        execute replace(definition, report.send_time || ' + s.window_length', 's.window_end');
    end loop;
end
$window_zone$;
