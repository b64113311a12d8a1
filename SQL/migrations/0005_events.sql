-- 0005_events.sql — the events table, partitioned by month of event time, and its indexes.
--
-- Design notes (why, not what):
--
-- * Partitioned by RANGE (time) with one partition per calendar month in UTC, named events_yYYYYmMM and
--   created by cardinal.ensure_event_partitions (0007). Retention drops whole partitions, which is cheap
--   and leaves no bloat. There is no DEFAULT partition: creating a month would then have to scan and lock
--   it, and an event outside every partition is better refused loudly (SQLSTATE 23514) than parked.
--
-- * Primary key (app_id, time, id) is the idempotency key. A unique key of a partitioned table must contain
--   the partition key, so id alone cannot be unique across partitions; a retried event carries the same id
--   and the same time, so (time, id) still catches every retry. app_id is in the key because UUIDs are
--   unique only if every client generates them properly: a buggy SDK (a constant or all-zero UUID, a copied
--   test fixture) in one app must never make another app's events count as duplicates. Leading with
--   app_id also lets the same index serve the reports' "one app, a time range" scans, and inserts of
--   mostly-current events still land on the right edge of each app's range.
--   The key deliberately does NOT contain user_key, which a Citus distribution by user_key would need; the
--   trade-off and the statements that change it are in SQL/citus.sql.
--
-- * No foreign key to apps: app_id comes from the authenticated ingest key, never from the payload, and a
--   foreign key would add a lookup and a FOR KEY SHARE lock on the same apps row for every inserted event
--   (multixact churn under concurrent batches), which the ingest throughput goal cannot afford.
--
-- * The CHECK constraints mirror the Ingest API rules (DESIGN.md). The daemon validates first and must be
--   at least as strict: one violating row fails the whole group-commit batch. Lengths are in characters
--   (Unicode code points, char_length), not bytes and not grapheme clusters.

create table cardinal.events (
    app_id          bigint      not null,
    id              uuid        not null,
    type            text        not null,
    channel         text,
    time            timestamptz not null,
    received_at     timestamptz not null default now(),
    user_id         text,
    device_id       text,
    session_id      text,
    campaign_id     text,
    canvas_id       text,
    canvas_step_id  text,
    variant_id      text,
    control         boolean     not null default false,
    message_id      text,
    placement_id    text,
    button_id       text,
    url             text,
    platform        text,
    sdk_version     text,
    app_version     text,
    os_version      text,
    test            boolean     not null default false,
    conversion_name text,
    value           numeric,
    currency        text,
    properties      jsonb,
    -- The identity rule of every report: a known user counts as that user on all devices, an anonymous
    -- event counts as its device. Stored so that indexes and Citus can use it. (A user_id that itself
    -- starts with 'device:' would meet the anonymous key of that device; SDK user ids never do.)
    user_key        text        generated always as (coalesce(user_id, 'device:' || device_id)) stored,

    constraint events_pkey primary key (app_id, time, id),

    constraint events_type_known check (
        type in ('send', 'impression', 'click', 'dismissal', 'conversion')
    ),
    constraint events_channel_known check (
        channel in ('content_card', 'in_app_message', 'banner', 'push', 'feature_flag')
    ),
    constraint events_channel_absent_only_on_conversion check ((channel is null) = (type = 'conversion')),
    constraint events_identity_present check (user_id is not null or device_id is not null),
    constraint events_message_source_present check (
        type = 'conversion'
        or campaign_id is not null
        or (canvas_id is not null and canvas_step_id is not null)
    ),
    -- Control users see nothing, so they can be enrolled (send) and log a control impression, but a
    -- control click or dismissal is an integration bug that the API rejects.
    constraint events_control_only_on_send_or_impression check (
        not control or type in ('send', 'impression')
    ),
    constraint events_conversion_name_only_on_conversion check (
        (conversion_name is not null) = (type = 'conversion')
    ),
    constraint events_value_only_on_conversion check (
        type = 'conversion' or (value is null and currency is null)
    ),
    constraint events_user_id_length check (char_length(user_id) between 1 and 511),
    constraint events_device_id_length check (char_length(device_id) between 1 and 255),
    constraint events_session_id_length check (char_length(session_id) between 1 and 255),
    constraint events_campaign_id_length check (char_length(campaign_id) between 1 and 255),
    constraint events_canvas_id_length check (char_length(canvas_id) between 1 and 255),
    constraint events_canvas_step_id_length check (char_length(canvas_step_id) between 1 and 255),
    constraint events_variant_id_length check (char_length(variant_id) between 1 and 255),
    constraint events_message_id_length check (char_length(message_id) between 1 and 255),
    constraint events_platform_known check (
        platform in ('ios', 'android', 'web', 'kindle', 'tvos', 'roku', 'other')
    ),
    constraint events_sdk_version_length check (char_length(sdk_version) between 1 and 64),
    constraint events_app_version_length check (char_length(app_version) between 1 and 64),
    constraint events_os_version_length check (char_length(os_version) between 1 and 64),
    constraint events_conversion_name_format check (
        char_length(conversion_name) between 1 and 255 and conversion_name !~ '^\$'
    ),
    -- numeric accepts NaN and ±Infinity, which JSON cannot carry and sums cannot survive.
    constraint events_value_finite check (value not in ('NaN', 'Infinity', '-Infinity')),
    constraint events_currency_iso_4217 check (currency ~ '^[A-Z]{3}$'),
    constraint events_properties_object check (jsonb_typeof(properties) = 'object')
) partition by range (time);

alter table cardinal.events owner to cardinal_owner;

comment on table cardinal.events is
    'Every accepted event, stored once per (app_id, time, id). Partitioned by month of event time (UTC), '
    'partitions named events_yYYYYmMM, made by ensure_event_partitions and dropped by '
    'drop_expired_event_partitions. Reports read event time, never arrival order.';
comment on column cardinal.events.app_id is
    'The app that sent the event: the app of the ingest key that authenticated the request.';
comment on column cardinal.events.id is
    'Client-generated UUID of the event; with app_id and time the idempotency key, so a retried event is '
    'stored once.';
comment on column cardinal.events.type is
    'What happened: send, impression, click, dismissal or conversion. A push open is a click.';
comment on column cardinal.events.channel is
    'Where the message was shown: content_card, in_app_message, banner, push or feature_flag. NULL exactly '
    'for conversions, which belong to no message.';
comment on column cardinal.events.time is
    'When the event happened, by the client''s clock (event time). Reports, partitions and retention use '
    'it; may be days before received_at for events queued offline.';
comment on column cardinal.events.received_at is
    'When Cardinal stored the event (start of the storing transaction): tells late events from live ones.';
comment on column cardinal.events.user_id is
    'External user id set by the app (changeUser), 1–511 characters; NULL for anonymous events.';
comment on column cardinal.events.device_id is
    'Device (installation) id, 1–255 characters; the identity of anonymous events.';
comment on column cardinal.events.session_id is
    'SDK session id, 1–255 characters; banner and feature-flag impressions are logged once per session.';
comment on column cardinal.events.campaign_id is
    'Campaign of the message, 1–255 characters; with canvas_id/canvas_step_id one of the two message '
    'sources that every non-conversion event has.';
comment on column cardinal.events.canvas_id is
    'Canvas (multi-step journey) of the message, 1–255 characters; set together with canvas_step_id.';
comment on column cardinal.events.canvas_step_id is
    'Step of the canvas that sent the message, 1–255 characters.';
comment on column cardinal.events.variant_id is
    'Variant (arm) of the campaign the user was assigned to, 1–255 characters; NULL when the campaign '
    'has a single message.';
comment on column cardinal.events.control is
    'True when the user is in the control group: on a send, enrolled in control; on an impression, a '
    'control impression (the moment the user would have seen the message). Only send and impression.';
comment on column cardinal.events.message_id is
    'Id of the delivered message: content card id (new for every send), in-app message id or feature '
    'flag id, 1–255 characters. Uniques are counted per campaign, not per message_id.';
comment on column cardinal.events.placement_id is
    'Banner placement (the named slot of the app) where a banner was shown.';
comment on column cardinal.events.button_id is
    'Button of a click on an in-app message ("0", "1", …); NULL for a body click.';
comment on column cardinal.events.url is
    'Link opened by a click, when the SDK reports it.';
comment on column cardinal.events.platform is
    'Platform of the SDK: ios, android, web, kindle, tvos, roku or other.';
comment on column cardinal.events.sdk_version is
    'SDK version, 1–64 characters; the anomaly report groups by it.';
comment on column cardinal.events.app_version is
    'App version, 1–64 characters; the anomaly report groups by it.';
comment on column cardinal.events.os_version is
    'Operating system version, 1–64 characters.';
comment on column cardinal.events.test is
    'True for a test send; reports exclude test events unless asked to include them.';
comment on column cardinal.events.conversion_name is
    'Name of a conversion event (the API field name), 1–255 characters, no leading $; set exactly on '
    'conversions. campaign_settings.conversion_event refers to it.';
comment on column cardinal.events.value is
    'Value of a conversion, e.g. a purchase amount, as an exact decimal; only on conversions.';
comment on column cardinal.events.currency is
    'ISO 4217 code of value (three upper-case letters); only on conversions.';
comment on column cardinal.events.properties is
    'Free-form JSON object of further attributes sent by the app; size bounded at ingest.';
comment on column cardinal.events.user_key is
    'Identity the reports count by: user_id when known, else ''device:'' || device_id. Generated.';


-- Serves the per-campaign reports: unique impressions/clicks/dismissals by variant, channel and day
-- (count distinct user_key per type over a time range), each user's first impression and first control
-- impression of a campaign, and the anomaly checks that compare types per user. The INCLUDE columns make
-- those scans index-only once autovacuum has marked the pages all-visible. canvas_id and canvas_step_id are
-- always null here (an event has one message source), but unique_impressions groups by them: without them
-- one campaign of 10 M events read the heap row by row (1.7 s instead of 0.8 s). Conversions are left out
-- (they carry no campaign), which keeps the index smaller and their inserts cheaper.
create index events_campaign_idx
    on cardinal.events (app_id, campaign_id, type, time)
    include (user_key, variant_id, channel, control, test, canvas_id, canvas_step_id)
    where campaign_id is not null;

comment on index cardinal.events_campaign_idx is
    'Per-campaign reports: app × campaign × type over a time range, covering user_key, variant, channel, '
    'control, test and the (always null) canvas columns the reports group by, for index-only scans.';

-- Serves the conversion join of the control report: for each user's first (control) impression, the
-- conversions of that user with the campaign's conversion_event within the window. Partial, so only
-- conversions pay for it; queries must say type = 'conversion' to use it.
create index events_conversion_idx
    on cardinal.events (app_id, user_key, conversion_name, time)
    where type = 'conversion';

comment on index cardinal.events_conversion_idx is
    'Conversion lookup by app, user_key, conversion name and time (control report); conversions only.';

comment on index cardinal.events_pkey is
    'Idempotency key (ON CONFLICT DO NOTHING) and the index for one app''s events over a time range.';
