-- Push deliveries (issue 44): the SDKs report a push notification that reached the device (Android
-- BrazePushEventType.NOTIFICATION_RECEIVED, iOS `.received`). Cardinal stores it as a `delivery` event on channel
-- push, the fold counts it per report group and day, and unique_impressions gives every push row its deliveries
-- and delivery rate (deliveries / sends), from push_counts (a function of the code files).
--
-- The two CHECKs scan every partition of events once, under the ACCESS EXCLUSIVE lock that dropping the old type
-- check takes: ingest waits for that scan (as for 0096's). The new columns have constant defaults, so no table is
-- rewritten; runs stored before this migration have no deliveries (NULL).

alter table cardinal.events
    drop constraint events_type_known,
    add constraint events_type_known check (
        type = any (array['send', 'impression', 'click', 'dismissal', 'delivery', 'conversion', 'session_start'])
    ),
    add constraint events_delivery_only_on_push check (type <> 'delivery' or channel = 'push');
comment on constraint events_delivery_only_on_push on cardinal.events is
    'A delivery is a push notification reaching the device; other channels are received when shown (an impression).';

alter table cardinal.report_daily_counts add column deliveries bigint not null default 0;
alter table cardinal.report_daily_counts alter column deliveries drop default;
comment on column cardinal.report_daily_counts.deliveries is
    'Push deliveries: delivery events, the devices reporting the notification received.';

alter table cardinal.report_unique_impressions
    add column deliveries bigint,
    add column delivery_rate double precision;
comment on column cardinal.report_unique_impressions.deliveries is
    'Push only: delivery events (the device reported the notification received); NULL on other channels and in '
    'runs stored before deliveries were reported.';
comment on column cardinal.report_unique_impressions.delivery_rate is
    'Push only: deliveries / sends (push send events, not control); NULL without sends, on other channels and in '
    'runs stored before deliveries were reported.';

alter type cardinal.unique_impressions_row
    add attribute deliveries bigint,
    add attribute delivery_rate double precision;

-- push_opens and its reference become push_counts and push_counts_reference (code files), whose rows carry the
-- sends and deliveries beside the influenced opens.
drop function if exists cardinal.push_opens(text, date, date, boolean, text, text);
drop function if exists cardinal.push_opens_reference(text, date, date, boolean, text, text);
alter type cardinal.push_opens_row rename to push_counts_row;
alter type cardinal.push_counts_row add attribute sends bigint, add attribute deliveries bigint;
comment on type cardinal.push_counts_row is
    'The counts behind the push columns of one unique_impressions row: push_counts and push_counts_reference '
    'return it.';

-- The push columns function takes the row's sends and deliveries; the code files create it with the new
-- arguments, and its callers with the new call.
drop function if exists cardinal.unique_impressions_open_columns(text, bigint, bigint, bigint, bigint, bigint);
