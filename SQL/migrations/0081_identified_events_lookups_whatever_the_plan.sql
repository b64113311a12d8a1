-- 0081_identified_events_lookups_whatever_the_plan.sql — identified_events (0035) finds a device's first login
-- by the device's index and checks that its user is new by the user's, whichever plan the planner picks, so
-- that no reference function is quadratic on a fresh load of devices that log in (issue 8, "Planner-proof").
--
-- Design notes (why, not what):
--
-- * 0035 promised two index probes per anonymous event "whatever the plan". Two plans broke it, both on a
--   bulk load of 30,000 devices that each log in after an anonymous event (60,000 events): the workload of
--   0079's test, now read by the reference functions instead of the state.
--   - The first login was `order by time, id limit 1`. The primary key (app_id, time, id) yields that order,
--     so the planner, which expects a match within the first rows, read the app's events by it and filtered
--     on the device: every event of the app once per anonymous event. unique_impressions_reference ran for
--     over 120 s (stopped); 3.3 s at 3,000 devices.
--   - The new-user check was a NOT EXISTS in the lateral's WHERE, which the planner turns into an anti-join.
--     Inside anomalies_since_0027 (0053: enable_nestloop off) that join became a hash anti-join rebuilt from
--     the app's events once per anonymous event: anomalies_reference over 300 s (stopped); 5.3 s at 3,000.
-- * Now the first login is an aggregate over the device's events that carry a user (its user_id by time,
--   then id, and the smallest time, which is that event's). An aggregate reads every row of its input, so no
--   index order can end it early, and the (app_id, device_id) index reads the fewest rows by any estimate.
--   The new-user check is a NOT EXISTS in the select list: a subplan run per anonymous event with a login,
--   on the (app_id, user_key) index, which no join setting affects. It takes the app from the lookup rather
--   than from the event: a reference outside the lateral is not a key of the Memoize node the planner may
--   put over it, which then empties its cache on every row (a review's scratch load of 200,000 events, 10 %
--   anonymous: 0 hits in 180,000, 4.9–7.2 s for a scan of the view where 0035 took 0.3–0.6 s). The rule is 0032's, unchanged, and so are the columns, so CREATE OR
--   REPLACE keeps the dependent functions and the column comments. The same 60,000 events: every reference
--   function in 2–5 s (PlannerProofReportsTests).

create or replace view cardinal.identified_events as
select e.app_id, e.id, e.type, e.channel, e.time, e.received_at, e.user_id, e.device_id, e.session_id,
       e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.control, e.message_id, e.placement_id,
       e.button_id, e.url, e.platform, e.sdk_version, e.app_version, e.os_version, e.test, e.conversion_name,
       e.value, e.currency, e.properties,
       coalesce(e.user_id, merged.user_id, e.user_key) as user_key,
       e.stored_xid
from cardinal.events as e
left join lateral (
    -- Only a user new at the login. An identified event's user_key is its user_id (0005), which lets the
    -- (app_id, user_key) index answer.
    select case
               when first_login.user_id is not null
                    and not exists (select from cardinal.events as u
                                    where u.app_id = first_login.app_id
                                      and u.user_key = first_login.user_id
                                      and u.user_id = first_login.user_id
                                      and u.time < first_login.time)
               then first_login.user_id
           end as user_id
    from (
        -- The device's first login, looked up only for an anonymous event: NULLs when it has none. Its app is
        -- the event's, taken from here so that the check above refers to nothing outside this lookup: a
        -- Memoize node caching the lookup per device would otherwise be emptied on every event.
        select (array_agg(b.user_id order by b.time, b.id))[1] as user_id, min(b.time) as time,
               min(b.app_id) as app_id
        from cardinal.events as b
        where e.user_id is null
          and b.app_id = e.app_id
          and b.device_id = e.device_id
          and b.user_id is not null
    ) as first_login
) as merged on true;

comment on view cardinal.identified_events is
    'cardinal.events with user_key resolved by the identity-merge rule (0032) computed from the raw events '
    'alone, without identity_links: an anonymous event counts as the first user (by time, then id) of an '
    'event carrying its device_id and a user_id, when that user had no event before it. Looked up per '
    'anonymous event on the (app_id, device_id) and (app_id, user_key) indexes whatever the plan (0035, '
    '0081), so its cost never depends on a row estimate. What the reference functions read.';
