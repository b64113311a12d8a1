-- 0035_identified_events_per_row.sql — identified_events (0032) resolves each anonymous event's user with
-- two index probes instead of joining every device's first login of every app.
--
-- Why: 0032 joined the events to a derived table of the first login of every device (DISTINCT ON over all
-- events, then an anti-join for users seen before their login). When the planner estimated one outer row
-- (a fresh app, a narrow filter) it chose a nested loop and recomputed that derived table for every outer
-- row: campaign_conversions_reference took 2.2 s for one app of 300 events in a database of 55,000, and the
-- property tests spent most of their time there. The reference functions must not hinge on a row estimate
-- either (issue 8): a LATERAL lookup per anonymous event costs two index probes ((app_id, device_id) and
-- (app_id, user_key), both in 0005 and later) whatever the plan, and nothing for identified events (the
-- lookup is gated on user_id IS NULL). The rule is 0032's, unchanged: the first event (by time, then id)
-- carrying the device and a user_id names the user, who takes the history only when they had no event
-- before that login. The columns are the same, so CREATE OR REPLACE keeps the dependent functions and the
-- column comments.

create or replace view cardinal.identified_events as
select e.app_id, e.id, e.type, e.channel, e.time, e.received_at, e.user_id, e.device_id, e.session_id,
       e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.control, e.message_id, e.placement_id,
       e.button_id, e.url, e.platform, e.sdk_version, e.app_version, e.os_version, e.test, e.conversion_name,
       e.value, e.currency, e.properties,
       coalesce(e.user_id, merged.user_id, e.user_key) as user_key,
       e.stored_xid
from cardinal.events as e
left join lateral (
    select first_login.user_id
    from (
        -- The device's first login, looked up only for an anonymous event.
        select b.user_id, b.time
        from cardinal.events as b
        where e.user_id is null
          and b.app_id = e.app_id
          and b.device_id = e.device_id
          and b.user_id is not null
        order by b.time, b.id
        limit 1
    ) as first_login
    -- Only a user new at the login. An identified event's user_key is its user_id (0005), which lets the
    -- (app_id, user_key) index answer.
    where not exists (select from cardinal.events as u
                      where u.app_id = e.app_id
                        and u.user_key = first_login.user_id
                        and u.user_id = first_login.user_id
                        and u.time < first_login.time)
) as merged on true;

comment on view cardinal.identified_events is
    'cardinal.events with user_key resolved by the identity-merge rule (0032) computed from the raw events '
    'alone, without identity_links: an anonymous event counts as the first user (by time, then id) of an '
    'event carrying its device_id and a user_id, when that user had no event before it. Looked up per '
    'anonymous event by index (0035), so its cost never depends on a row estimate. What the reference '
    'functions read.';
