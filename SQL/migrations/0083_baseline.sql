-- The baseline: Cardinal's tables, indexes, constraints and sequences as migrations 0001–0083 left them, in one
-- file, so that a new database runs this instead of 83 files. Functions, views and triggers are not here: they
-- live in SQL/code and cardinal migrate applies them after the versioned migrations. The three functions below
-- that tables depend on (a CHECK, a column default, an index expression) stay versioned here, since replacing
-- them would leave stored values computed by the old body.
--
-- A database migrated to 0083 by an earlier release counts as at this baseline and never runs this file. The
-- table definitions below were written by pg_dump --schema-only from such a database; their comments are the
-- documentation (\d+ in psql). Append-only, like every versioned migration: change a table in a new file.


-- The three group roles, created only if missing: roles belong to the cluster, so several databases of one
-- cluster (or two migrations at once) may race to create them.
do $roles$
declare
    wanted record;
begin
    for wanted in
        select *
        from (values
            ('cardinal_owner',
             'Cardinal: owns the schema cardinal and everything in it; used for migrations and by the '
             'cardinal command. NOLOGIN group role: grant it to a login role.'),
            ('cardinal_ingest',
             'Cardinal: the ingest daemon cardinald; inserts events and rejected events, reads apps, ingest '
             'keys and settings, never reads stored events. NOLOGIN group role: grant it to a login role.'),
            ('cardinal_reader',
             'Cardinal: analysts, dashboards and report readers; selects every table and view of the schema '
             'cardinal except ingest key hashes, writes nothing. NOLOGIN group role: grant it to a login role.')
        ) as role_list (name, description)
    loop
        if not exists (select from pg_catalog.pg_roles where rolname = wanted.name) then
            begin
                execute format('create role %I nologin', wanted.name);
                execute format('comment on role %I is %L', wanted.name, wanted.description);
            exception
                when duplicate_object or unique_violation then
                    -- Another database's migration created the role first; it is the same role.
                    null;
            end;
        elsif exists (select from pg_catalog.pg_roles where rolname = wanted.name and rolcanlogin) then
            -- Not fatal, the grants work either way, but a login-capable group role is usually a mistake.
            raise warning 'role % can log in; Cardinal expects a NOLOGIN group role granted to login roles',
                wanted.name;
        end if;
    end loop;
end
$roles$;

do $database$
begin
    execute format('grant connect, temporary on database %I to cardinal_ingest', current_database());
    execute format('grant connect on database %I to cardinal_reader', current_database());
end
$database$;

-- cardinal migrate creates the schema before the first migration (it keeps its bookkeeping there).
alter schema cardinal owner to cardinal_owner;

comment on schema cardinal is
    'Cardinal engagement analytics: apps, ingest keys, settings, events (partitioned by month of event '
    'time), rejected events and report tables. Owned by cardinal_owner; see SQL/README.md.';

revoke all on schema cardinal from public;
grant usage on schema cardinal to cardinal_ingest, cardinal_reader;

alter default privileges for role cardinal_owner in schema cardinal
    grant select on tables to cardinal_reader;

alter default privileges for role cardinal_owner
    revoke execute on functions from public;


CREATE TABLE cardinal.report_row_day_users (
    row_id bigint NOT NULL,
    kind text NOT NULL,
    day date NOT NULL,
    previous_day date NOT NULL,
    users bigint NOT NULL,
    CONSTRAINT report_row_day_users_kind CHECK ((kind = ANY (ARRAY['impression'::text, 'click'::text, 'dismissal'::text, 'send'::text]))),
    CONSTRAINT report_row_day_users_order CHECK ((previous_day < day))
);

ALTER TABLE cardinal.report_row_day_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_row_day_users IS 'Report state: per unique-impressions row, kind of event and report day, how many users had that kind of event on that day, by the day they last had one before it. Unique users over days from..to are the sum where day is in the range and previous_day < from; (day, user) pairs the sum where day is in it.';

COMMENT ON COLUMN cardinal.report_row_day_users.row_id IS 'The report row (report_rows.row_id).';

COMMENT ON COLUMN cardinal.report_row_day_users.kind IS 'impression, click, dismissal or send (non-control, non-test).';

COMMENT ON COLUMN cardinal.report_row_day_users.day IS 'The report day.';

COMMENT ON COLUMN cardinal.report_row_day_users.previous_day IS 'The user''s previous report day with this kind of event in this row; -infinity when there was none.';

COMMENT ON COLUMN cardinal.report_row_day_users.users IS 'How many users; a row that reaches 0 is deleted in the same transaction.';

CREATE TABLE cardinal.erasures (
    erasure_id bigint NOT NULL,
    erased_at timestamp with time zone DEFAULT now() NOT NULL,
    erased_by text DEFAULT CURRENT_USER NOT NULL,
    app_id bigint NOT NULL,
    identity_kind text NOT NULL,
    identity_hash bytea NOT NULL,
    events bigint NOT NULL,
    rejected_events bigint NOT NULL,
    report_user_state bigint NOT NULL,
    report_session_state bigint NOT NULL,
    report_conversion_state bigint NOT NULL,
    report_daily_counts bigint NOT NULL,
    report_fold_queue bigint NOT NULL,
    report_groups bigint NOT NULL,
    requeued_events bigint NOT NULL,
    CONSTRAINT erasures_identity_hash_is_sha256 CHECK ((octet_length(identity_hash) = 32)),
    CONSTRAINT erasures_identity_kind_known CHECK ((identity_kind = ANY (ARRAY['user'::text, 'device'::text])))
);

ALTER TABLE cardinal.erasures OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.erasures IS 'Audit trail of erasures (cardinal users erase, erase_identity): one row per erased identity, written in the erasing transaction. Holds no identity: only a salted hash of it (erasure_identity_hash), so that whoever is given an identity can tell whether and when it was erased. Never deleted by Cardinal.';

COMMENT ON COLUMN cardinal.erasures.erasure_id IS 'Identifier of the erasure, in the order they committed.';

COMMENT ON COLUMN cardinal.erasures.erased_at IS 'When the erasing transaction started.';

COMMENT ON COLUMN cardinal.erasures.erased_by IS 'The database role that ran it (an operator''s login, not the data subject).';

COMMENT ON COLUMN cardinal.erasures.app_id IS 'The app whose data was erased (apps.app_id).';

COMMENT ON COLUMN cardinal.erasures.identity_kind IS 'user (a user_id) or device (a device_id).';

COMMENT ON COLUMN cardinal.erasures.identity_hash IS 'SHA-256 of the installation''s salt (erasure_salt) and kind:identity; see erasure_identity_hash.';

COMMENT ON COLUMN cardinal.erasures.events IS 'Events deleted.';

COMMENT ON COLUMN cardinal.erasures.rejected_events IS 'Rejected events deleted (matched in their raw body).';

COMMENT ON COLUMN cardinal.erasures.report_user_state IS 'report_user_state rows deleted (the affected users'').';

COMMENT ON COLUMN cardinal.erasures.report_session_state IS 'report_session_state rows deleted.';

COMMENT ON COLUMN cardinal.erasures.report_conversion_state IS 'report_conversion_state rows deleted.';

COMMENT ON COLUMN cardinal.erasures.report_daily_counts IS 'report_daily_counts rows reduced by the affected users'' events (deleted when nothing was left).';

COMMENT ON COLUMN cardinal.erasures.report_fold_queue IS 'Queued rows of the affected users removed from report_fold_queue.';

COMMENT ON COLUMN cardinal.erasures.report_groups IS 'report_groups left without state and deleted.';

COMMENT ON COLUMN cardinal.erasures.requeued_events IS 'Remaining events of other users who shared the erased device, which the next fold folds again to rebuild their state (queued again, or still unfolded since they were stored).';

CREATE TABLE cardinal.events (
    app_id bigint NOT NULL,
    id uuid NOT NULL,
    type text NOT NULL,
    channel text,
    "time" timestamp with time zone NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    user_id text,
    device_id text,
    session_id text,
    campaign_id text,
    canvas_id text,
    canvas_step_id text,
    variant_id text,
    control boolean DEFAULT false NOT NULL,
    message_id text,
    placement_id text,
    button_id text,
    url text,
    platform text,
    sdk_version text,
    app_version text,
    os_version text,
    test boolean DEFAULT false NOT NULL,
    conversion_name text,
    value numeric,
    currency text,
    properties jsonb,
    user_key text GENERATED ALWAYS AS (COALESCE(user_id, ('device:'::text || device_id))) STORED,
    stored_xid bigint DEFAULT ((pg_current_xact_id())::text)::bigint,
    CONSTRAINT events_app_version_length CHECK ((char_length(app_version) BETWEEN 1 AND 64)),
    CONSTRAINT events_campaign_id_length CHECK ((char_length(campaign_id) BETWEEN 1 AND 255)),
    CONSTRAINT events_canvas_id_length CHECK ((char_length(canvas_id) BETWEEN 1 AND 255)),
    CONSTRAINT events_canvas_step_id_length CHECK ((char_length(canvas_step_id) BETWEEN 1 AND 255)),
    CONSTRAINT events_channel_absent_only_on_conversion CHECK (((channel IS NULL) = (type = ANY (ARRAY['conversion'::text, 'session_start'::text])))),
    CONSTRAINT events_channel_known CHECK ((channel = ANY (ARRAY['content_card'::text, 'in_app_message'::text, 'banner'::text, 'push'::text, 'feature_flag'::text]))),
    CONSTRAINT events_control_only_on_send_or_impression CHECK (((NOT control) OR (type = ANY (ARRAY['send'::text, 'impression'::text])))),
    CONSTRAINT events_conversion_name_format CHECK (((char_length(conversion_name) BETWEEN 1 AND 255) AND (conversion_name !~ '^\$'::text))),
    CONSTRAINT events_conversion_name_only_on_conversion CHECK (((conversion_name IS NOT NULL) = (type = 'conversion'::text))),
    CONSTRAINT events_currency_iso_4217 CHECK ((currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT events_device_id_length CHECK ((char_length(device_id) BETWEEN 1 AND 255)),
    CONSTRAINT events_identity_present CHECK (((user_id IS NOT NULL) OR (device_id IS NOT NULL))),
    CONSTRAINT events_message_id_length CHECK ((char_length(message_id) BETWEEN 1 AND 255)),
    CONSTRAINT events_message_source_present CHECK (((type = ANY (ARRAY['conversion'::text, 'session_start'::text])) OR (campaign_id IS NOT NULL) OR ((canvas_id IS NOT NULL) AND (canvas_step_id IS NOT NULL)))),
    CONSTRAINT events_os_version_length CHECK ((char_length(os_version) BETWEEN 1 AND 64)),
    CONSTRAINT events_platform_known CHECK ((platform = ANY (ARRAY['ios'::text, 'android'::text, 'web'::text, 'kindle'::text, 'tvos'::text, 'roku'::text, 'other'::text]))),
    CONSTRAINT events_properties_object CHECK ((jsonb_typeof(properties) = 'object'::text)),
    CONSTRAINT events_sdk_version_length CHECK ((char_length(sdk_version) BETWEEN 1 AND 64)),
    CONSTRAINT events_session_id_length CHECK ((char_length(session_id) BETWEEN 1 AND 255)),
    CONSTRAINT events_session_start_without_message CHECK (((type <> 'session_start'::text) OR ((variant_id IS NULL) AND (message_id IS NULL) AND (button_id IS NULL)))),
    CONSTRAINT events_type_known CHECK ((type = ANY (ARRAY['send'::text, 'impression'::text, 'click'::text, 'dismissal'::text, 'conversion'::text, 'session_start'::text]))),
    CONSTRAINT events_user_id_length CHECK ((char_length(user_id) BETWEEN 1 AND 511)),
    CONSTRAINT events_value_finite CHECK ((value <> ALL (ARRAY['NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric]))),
    CONSTRAINT events_value_only_on_conversion CHECK (((type = 'conversion'::text) OR ((value IS NULL) AND (currency IS NULL)))),
    CONSTRAINT events_variant_id_length CHECK ((char_length(variant_id) BETWEEN 1 AND 255))
)
PARTITION BY RANGE ("time");

ALTER TABLE cardinal.events OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.events IS 'Every accepted event, stored once per (app_id, time, id). Partitioned by month of event time (UTC), partitions named events_yYYYYmMM, made by ensure_event_partitions and dropped by drop_expired_event_partitions. Reports read event time, never arrival order.';

COMMENT ON COLUMN cardinal.events.app_id IS 'The app that sent the event: the app of the ingest key that authenticated the request.';

COMMENT ON COLUMN cardinal.events.id IS 'Client-generated UUID of the event; with app_id and time the idempotency key, so a retried event is stored once.';

COMMENT ON COLUMN cardinal.events.type IS 'What happened: send, impression, click, dismissal, conversion or session_start (the app came to the foreground and the SDK opened a session). A push open is a click (Braze''s direct open).';

COMMENT ON COLUMN cardinal.events.channel IS 'Where the message was shown: content_card, in_app_message, banner, push or feature_flag. NULL exactly for conversions and session starts, which belong to no message.';

COMMENT ON COLUMN cardinal.events."time" IS 'When the event happened, by the client''s clock (event time). Reports, partitions and retention use it; may be days before received_at for events queued offline.';

COMMENT ON COLUMN cardinal.events.received_at IS 'When Cardinal stored the event (start of the storing transaction): tells late events from live ones.';

COMMENT ON COLUMN cardinal.events.user_id IS 'External user id set by the app (changeUser), 1–511 characters; NULL for anonymous events.';

COMMENT ON COLUMN cardinal.events.device_id IS 'Device (installation) id, 1–255 characters; the identity of anonymous events.';

COMMENT ON COLUMN cardinal.events.session_id IS 'SDK session id, 1–255 characters; banner and feature-flag impressions are logged once per session.';

COMMENT ON COLUMN cardinal.events.campaign_id IS 'Campaign of the message, 1–255 characters; with canvas_id/canvas_step_id one of the two message sources that every non-conversion event has.';

COMMENT ON COLUMN cardinal.events.canvas_id IS 'Canvas (multi-step journey) of the message, 1–255 characters; set together with canvas_step_id.';

COMMENT ON COLUMN cardinal.events.canvas_step_id IS 'Step of the canvas that sent the message, 1–255 characters.';

COMMENT ON COLUMN cardinal.events.variant_id IS 'Variant (arm) of the campaign the user was assigned to, 1–255 characters; NULL when the campaign has a single message.';

COMMENT ON COLUMN cardinal.events.control IS 'True when the user is in the control group: on a send, enrolled in control; on an impression, a control impression (the moment the user would have seen the message). Only send and impression.';

COMMENT ON COLUMN cardinal.events.message_id IS 'Id of the delivered message: content card id (new for every send), in-app message id or feature flag id, 1–255 characters. Uniques are counted per campaign, not per message_id.';

COMMENT ON COLUMN cardinal.events.placement_id IS 'Banner placement (the named slot of the app) where a banner was shown.';

COMMENT ON COLUMN cardinal.events.button_id IS 'Button of a click on an in-app message ("0", "1", …); NULL for a body click.';

COMMENT ON COLUMN cardinal.events.url IS 'Link opened by a click, when the SDK reports it.';

COMMENT ON COLUMN cardinal.events.platform IS 'Platform of the SDK: ios, android, web, kindle, tvos, roku or other.';

COMMENT ON COLUMN cardinal.events.sdk_version IS 'SDK version, 1–64 characters; the anomaly report groups by it.';

COMMENT ON COLUMN cardinal.events.app_version IS 'App version, 1–64 characters; the anomaly report groups by it.';

COMMENT ON COLUMN cardinal.events.os_version IS 'Operating system version, 1–64 characters.';

COMMENT ON COLUMN cardinal.events.test IS 'True for a test send; reports exclude test events unless asked to include them.';

COMMENT ON COLUMN cardinal.events.conversion_name IS 'Name of a conversion event (the API field name), 1–255 characters, no leading $; set exactly on conversions. campaign_settings.conversion_event refers to it.';

COMMENT ON COLUMN cardinal.events.value IS 'Value of a conversion, e.g. a purchase amount, as an exact decimal; only on conversions.';

COMMENT ON COLUMN cardinal.events.currency IS 'ISO 4217 code of value (three upper-case letters); only on conversions.';

COMMENT ON COLUMN cardinal.events.properties IS 'Free-form JSON object of further attributes sent by the app; size bounded at ingest.';

COMMENT ON COLUMN cardinal.events.user_key IS 'Identity the reports count by: user_id when known, else ''device:'' || device_id. Generated.';

COMMENT ON COLUMN cardinal.events.stored_xid IS 'Id (64-bit, with epoch) of the transaction that stored the event; NULL for events stored before migration 0021. The report-state fold finds new events by it (report_fold_watermark).';

CREATE FUNCTION cardinal.is_valid_time_zone(zone text) RETURNS boolean
    LANGUAGE sql STABLE STRICT
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    select exists (select from pg_catalog.pg_timezone_names where name = zone);
$$;

ALTER FUNCTION cardinal.is_valid_time_zone(zone text) OWNER TO cardinal_owner;

COMMENT ON FUNCTION cardinal.is_valid_time_zone(zone text) IS 'True when zone is an IANA time zone name known to this server (pg_timezone_names), e.g. ''Europe/Madrid'' or ''UTC''; false for POSIX specs like ''UTC+3'' and for abbreviations. Used by the CHECK constraints of report_time_zone columns. NULL for NULL.';

CREATE FUNCTION cardinal.report_fold_user_hash(user_key text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN ((COALESCE(hashtext(user_key), 0))::bigint & (2147483647)::bigint);

ALTER FUNCTION cardinal.report_fold_user_hash(user_key text) OWNER TO cardinal_owner;

COMMENT ON FUNCTION cardinal.report_fold_user_hash(user_key text) IS 'The hash (0 to 2^31 - 1) of a queued event''s user key, as queued (not resolved through identity links): a fold of a queue longer than cardinal.fold_queue_budget takes the queued events of one range of it (take_report_fold_snapshot, 0077).';

CREATE TABLE cardinal.report_groups (
    group_id bigint NOT NULL,
    app_id bigint NOT NULL,
    campaign_id text,
    canvas_id text,
    canvas_step_id text,
    variant_id text,
    channel text NOT NULL,
    platform text,
    sdk_version text,
    app_version text,
    test boolean NOT NULL,
    finding_id bigint NOT NULL
);

ALTER TABLE cardinal.report_groups OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_groups IS 'Report groups of the report state: each distinct app × message source × variant × channel × platform × SDK version × app version × test flag that stored events have had. Made by the fold; deleted only by an erasure that leaves a group without state (the fold makes it again, with a new group_id, if events of it are queued).';

COMMENT ON COLUMN cardinal.report_groups.group_id IS 'Identity of the group; report_user_state refers to it.';

COMMENT ON COLUMN cardinal.report_groups.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_groups.campaign_id IS 'Campaign of the events; NULL for canvas steps.';

COMMENT ON COLUMN cardinal.report_groups.canvas_id IS 'Canvas of the events; NULL for campaigns.';

COMMENT ON COLUMN cardinal.report_groups.canvas_step_id IS 'Canvas step of the events; NULL for campaigns.';

COMMENT ON COLUMN cardinal.report_groups.variant_id IS 'Variant of the events as sent (control events included).';

COMMENT ON COLUMN cardinal.report_groups.channel IS 'Channel of the events.';

COMMENT ON COLUMN cardinal.report_groups.platform IS 'Platform of the events, NULL when not sent.';

COMMENT ON COLUMN cardinal.report_groups.sdk_version IS 'SDK version of the events, NULL when not sent.';

COMMENT ON COLUMN cardinal.report_groups.app_version IS 'App version of the events, NULL when not sent.';

COMMENT ON COLUMN cardinal.report_groups.test IS 'Whether the events are test events.';

COMMENT ON COLUMN cardinal.report_groups.finding_id IS 'The group''s finding group (report_findings), set when the group is made (0069).';

CREATE TABLE cardinal.report_push_send_state (
    group_id bigint NOT NULL,
    user_key text NOT NULL,
    times timestamp with time zone[] NOT NULL
);

ALTER TABLE cardinal.report_push_send_state OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_push_send_state IS 'Report state of push sends (0029): per report group and user, the time of every non-control push send, for influenced opens. Rows go when the user''s report_user_state row of the group goes.';

COMMENT ON COLUMN cardinal.report_push_send_state.group_id IS 'The report group (report_groups.group_id).';

COMMENT ON COLUMN cardinal.report_push_send_state.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_push_send_state.times IS 'Event times of the push sends, unordered.';

CREATE FUNCTION cardinal.report_row_key(app_id bigint, campaign_id text, canvas_id text, canvas_step_id text, variant_id text, channel text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    select app_id::text || ',' || quote_nullable(campaign_id) || ',' || quote_nullable(canvas_id) || ','
           || quote_nullable(canvas_step_id) || ',' || quote_nullable(variant_id) || ',' || quote_nullable(channel);
$$;

ALTER FUNCTION cardinal.report_row_key(app_id bigint, campaign_id text, canvas_id text, canvas_step_id text, variant_id text, channel text) OWNER TO cardinal_owner;

COMMENT ON FUNCTION cardinal.report_row_key(app_id bigint, campaign_id text, canvas_id text, canvas_step_id text, variant_id text, channel text) IS 'A unique-impressions row''s columns as one text (report_rows.row_key): app_id and the quoted campaign, canvas, canvas step, variant and channel.';

CREATE TABLE cardinal.apps (
    app_id bigint NOT NULL,
    name text NOT NULL,
    report_time_zone text DEFAULT 'UTC'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT apps_name_trimmed CHECK (((name = btrim(name)) AND ((char_length(name) >= 1) AND (char_length(name) <= 255)))),
    CONSTRAINT apps_report_time_zone_valid CHECK (cardinal.is_valid_time_zone(report_time_zone))
);

ALTER TABLE cardinal.apps OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.apps IS 'One row per app (workspace) that sends events. Created with the cardinal command; every event, ingest key and campaign setting belongs to exactly one app.';

COMMENT ON COLUMN cardinal.apps.app_id IS 'Identifier of the app, assigned by the database; stored in every event of the app.';

COMMENT ON COLUMN cardinal.apps.name IS 'Unique human name of the app, as shown in listings and reports (1–255 characters, no surrounding spaces).';

COMMENT ON COLUMN cardinal.apps.report_time_zone IS 'IANA time zone whose calendar days the reports of this app use (unique daily impressions, per-day rows); a campaign can override it in campaign_settings.';

COMMENT ON COLUMN cardinal.apps.created_at IS 'When the app was created.';

CREATE TABLE cardinal.campaign_settings (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    conversion_event text,
    conversion_window interval DEFAULT '3 days'::interval NOT NULL,
    expected_split jsonb,
    report_time_zone text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    influenced_open_window interval,
    CONSTRAINT campaign_settings_campaign_id_length CHECK ((char_length(campaign_id) BETWEEN 1 AND 255)),
    CONSTRAINT campaign_settings_conversion_event_name CHECK (((char_length(conversion_event) BETWEEN 1 AND 255) AND (conversion_event !~ '^\$'::text))),
    CONSTRAINT campaign_settings_conversion_window_range CHECK (((conversion_window BETWEEN '00:00:01'::interval AND '30 days'::interval) AND (EXTRACT(year FROM conversion_window) = (0)::numeric) AND (EXTRACT(month FROM conversion_window) = (0)::numeric))),
    CONSTRAINT campaign_settings_expected_split_shape CHECK (((jsonb_typeof(expected_split) = 'object'::text) AND ((jsonb_array_length(jsonb_path_query_array(expected_split, '$.*'::jsonpath)) >= 1) AND (jsonb_array_length(jsonb_path_query_array(expected_split, '$.*'::jsonpath)) <= 9)) AND (NOT jsonb_path_exists(expected_split, '$.*?(@.type() != "number" || @ <= 0)'::jsonpath)))),
    CONSTRAINT campaign_settings_influenced_open_window_range CHECK (((influenced_open_window BETWEEN '00:01:00'::interval AND '7 days'::interval) AND (EXTRACT(year FROM influenced_open_window) = (0)::numeric) AND (EXTRACT(month FROM influenced_open_window) = (0)::numeric))),
    CONSTRAINT campaign_settings_report_time_zone_valid CHECK (((report_time_zone IS NULL) OR cardinal.is_valid_time_zone(report_time_zone)))
);

ALTER TABLE cardinal.campaign_settings OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.campaign_settings IS 'Per-campaign report settings, edited with the cardinal command or in psql. A campaign without a row uses the defaults of the columns.';

COMMENT ON COLUMN cardinal.campaign_settings.app_id IS 'The app the campaign belongs to.';

COMMENT ON COLUMN cardinal.campaign_settings.campaign_id IS 'The campaign, as sent in the campaign_id field of its events.';

COMMENT ON COLUMN cardinal.campaign_settings.conversion_event IS 'Name of the primary conversion event (the name field of conversion events) that the control report counts; NULL = no conversion goal set, so the control report has nothing to compare.';

COMMENT ON COLUMN cardinal.campaign_settings.conversion_window IS 'How long after a user''s first (control) impression — after the send for push — a conversion still counts. Between 1 second and 30 days, in days/hours/minutes/seconds (no months).';

COMMENT ON COLUMN cardinal.campaign_settings.expected_split IS 'Expected share of users per arm for the sample ratio mismatch check: a JSON object from arm to positive weight, e.g. {"control": 1, "v1": 1}. The key "control" is the control group, the others are variant_id values. Weights are relative. NULL = no SRM check.';

COMMENT ON COLUMN cardinal.campaign_settings.report_time_zone IS 'IANA time zone of the report day for this campaign; NULL = the app''s report_time_zone.';

COMMENT ON COLUMN cardinal.campaign_settings.updated_at IS 'When the row was last changed (maintained by a trigger).';

COMMENT ON COLUMN cardinal.campaign_settings.influenced_open_window IS 'How long after a push send an app open (session_start) without a direct open counts as an influenced open of the push; NULL means 12 hours. 1 minute to 7 days, no months.';

CREATE TABLE cardinal.report_user_state (
    group_id bigint NOT NULL,
    user_key text NOT NULL,
    impression_days date[],
    click_days date[],
    dismissal_days date[],
    send_days date[],
    control_impression_days date[],
    control_send_days date[],
    first_impression_at timestamp with time zone,
    first_send_at timestamp with time zone,
    first_control_impression_at timestamp with time zone,
    first_control_send_at timestamp with time zone,
    click_times timestamp with time zone[],
    dismissal_times timestamp with time zone[]
);

ALTER TABLE cardinal.report_user_state OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_user_state IS 'Report state: what each user did in each report group, folded from the stored events (0015). The reports read it (through report_user_facts) instead of the raw events. *_days are the report days (campaign''s report time zone) with at least one such event, unordered and possibly repeated; NULL when there was none.';

COMMENT ON COLUMN cardinal.report_user_state.group_id IS 'The report group (report_groups.group_id).';

COMMENT ON COLUMN cardinal.report_user_state.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_user_state.impression_days IS 'Report days with impressions (not control).';

COMMENT ON COLUMN cardinal.report_user_state.click_days IS 'Report days with clicks.';

COMMENT ON COLUMN cardinal.report_user_state.dismissal_days IS 'Report days with dismissals.';

COMMENT ON COLUMN cardinal.report_user_state.send_days IS 'Report days with sends (not control).';

COMMENT ON COLUMN cardinal.report_user_state.control_impression_days IS 'Report days with control impressions.';

COMMENT ON COLUMN cardinal.report_user_state.control_send_days IS 'Report days with control sends.';

COMMENT ON COLUMN cardinal.report_user_state.first_impression_at IS 'Time of the first impression (not control).';

COMMENT ON COLUMN cardinal.report_user_state.first_send_at IS 'Time of the first send (not control).';

COMMENT ON COLUMN cardinal.report_user_state.first_control_impression_at IS 'Time of the first control impression.';

COMMENT ON COLUMN cardinal.report_user_state.first_control_send_at IS 'Time of the first control send.';

COMMENT ON COLUMN cardinal.report_user_state.click_times IS 'Times of every click, unordered: the anomaly report compares each with the user''s first impression.';

COMMENT ON COLUMN cardinal.report_user_state.dismissal_times IS 'Times of every dismissal, unordered: the anomaly report compares each with the user''s first impression.';

ALTER TABLE cardinal.apps ALTER COLUMN app_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME cardinal.apps_app_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE cardinal.campaign_conversion_events (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    ordinal smallint NOT NULL,
    conversion_event text NOT NULL,
    CONSTRAINT campaign_conversion_events_name CHECK (((char_length(conversion_event) BETWEEN 1 AND 255) AND (conversion_event !~ '^\$'::text))),
    CONSTRAINT campaign_conversion_events_ordinal_range CHECK ((ordinal BETWEEN 2 AND 4))
);

ALTER TABLE cardinal.campaign_conversion_events OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.campaign_conversion_events IS 'The conversion events of a campaign after its primary one (campaign_settings.conversion_event): up to three more, ordinals 2 to 4, each counted in campaign_conversions and control_arm_conversions with the campaign''s conversion window. Set with `cardinal campaigns set --conversions`.';

COMMENT ON COLUMN cardinal.campaign_conversion_events.app_id IS 'The app the campaign belongs to.';

COMMENT ON COLUMN cardinal.campaign_conversion_events.campaign_id IS 'The campaign (campaign_settings.campaign_id).';

COMMENT ON COLUMN cardinal.campaign_conversion_events.ordinal IS 'Position among the campaign''s conversion events, 2 to 4 (1 is campaign_settings.conversion_event); Braze''s conversion events B, C and D.';

COMMENT ON COLUMN cardinal.campaign_conversion_events.conversion_event IS 'Name of the conversion event (the name field of conversion events).';

CREATE TABLE cardinal.report_daily_counts (
    group_id bigint NOT NULL,
    day date NOT NULL,
    impressions bigint NOT NULL,
    clicks bigint NOT NULL,
    dismissals bigint NOT NULL,
    sends bigint NOT NULL,
    control_impressions bigint NOT NULL,
    control_sends bigint NOT NULL
);

ALTER TABLE cardinal.report_daily_counts OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_daily_counts IS 'Report state: events per report group and report day, by kind, folded from the stored events (0015); the totals of the unique-impressions report.';

COMMENT ON COLUMN cardinal.report_daily_counts.group_id IS 'The report group (report_groups.group_id).';

COMMENT ON COLUMN cardinal.report_daily_counts.day IS 'The report day (campaign''s report time zone).';

COMMENT ON COLUMN cardinal.report_daily_counts.impressions IS 'Impressions (not control).';

COMMENT ON COLUMN cardinal.report_daily_counts.clicks IS 'Clicks.';

COMMENT ON COLUMN cardinal.report_daily_counts.dismissals IS 'Dismissals.';

COMMENT ON COLUMN cardinal.report_daily_counts.sends IS 'Sends (not control).';

COMMENT ON COLUMN cardinal.report_daily_counts.control_impressions IS 'Control impressions.';

COMMENT ON COLUMN cardinal.report_daily_counts.control_sends IS 'Control sends.';

CREATE TABLE cardinal.erasure_salt (
    singleton boolean DEFAULT true NOT NULL,
    salt bytea NOT NULL,
    CONSTRAINT erasure_salt_length CHECK ((octet_length(salt) >= 16)),
    CONSTRAINT erasure_salt_singleton_is_true CHECK (singleton)
);

ALTER TABLE cardinal.erasure_salt OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.erasure_salt IS 'The installation''s salt of erasures.identity_hash: exactly one row, made at migration, never changed (a new salt would make old audit rows unverifiable). Readable by cardinal_owner only, not by cardinal_reader: with it, a hash can be tested against guessed ids.';

COMMENT ON COLUMN cardinal.erasure_salt.singleton IS 'Always true; as the primary key it limits the table to one row.';

COMMENT ON COLUMN cardinal.erasure_salt.salt IS '32 random bytes prefixed to the identity before hashing (erasure_identity_hash).';

ALTER TABLE cardinal.erasures ALTER COLUMN erasure_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME cardinal.erasures_erasure_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE cardinal.event_storing_xids (
    xid bigint NOT NULL
);

ALTER TABLE cardinal.event_storing_xids OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.event_storing_xids IS 'The transactions that stored events (inserted into cardinal.events) at or above report_fold_watermark.folded_below, one row each, written in the storing transaction by a statement trigger on cardinal.events: the pending read (unfolded_stored_events) reads the events partitions only when one of them is past the watermark and not folded. Pruned as the watermark passes them (0061).';

COMMENT ON COLUMN cardinal.event_storing_xids.xid IS 'The storing transaction''s id, as events.stored_xid holds it.';

CREATE TABLE cardinal.identity_links (
    app_id bigint NOT NULL,
    device_id text NOT NULL,
    user_id text NOT NULL,
    linked_at timestamp with time zone NOT NULL,
    event_id uuid NOT NULL,
    merged boolean NOT NULL
);

ALTER TABLE cardinal.identity_links OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.identity_links IS 'Identity merge (0032): the first user (by event time, then event id) of an event carrying both device_id and user_id, one per app and device, and whether the device''s anonymous events count as that user (merged). Kept by the report-state fold (fold_identity_links) and by erasure.';

COMMENT ON COLUMN cardinal.identity_links.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.identity_links.device_id IS 'The device (events.device_id).';

COMMENT ON COLUMN cardinal.identity_links.user_id IS 'The first user seen with the device: owns every event of the device that has no user_id when merged.';

COMMENT ON COLUMN cardinal.identity_links.linked_at IS 'Event time of the first event carrying both ids.';

COMMENT ON COLUMN cardinal.identity_links.event_id IS 'Id of that event: breaks ties between events of the same time.';

COMMENT ON COLUMN cardinal.identity_links.merged IS 'True when the user had no event before linked_at (a new user: the anonymous profile merges into it); false for a user who existed already, whose profile stays apart from the device''s anonymous events.';

CREATE TABLE cardinal.ingest_keys (
    key_id text NOT NULL,
    app_id bigint NOT NULL,
    key_hash bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    description text,
    CONSTRAINT ingest_keys_key_hash_is_sha256 CHECK ((octet_length(key_hash) = 32)),
    CONSTRAINT ingest_keys_key_id_format CHECK ((key_id ~ '^ck_[0-9A-Za-z]{12}$'::text)),
    CONSTRAINT ingest_keys_revoked_after_created CHECK (((revoked_at IS NULL) OR (revoked_at >= created_at)))
);

ALTER TABLE cardinal.ingest_keys OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.ingest_keys IS 'Ingest keys: the bearer credentials that apps send to POST /v1/events. A key is shown once, when created, as ''cdl_<key_id>_<secret>'' (the secret: 32 letters or digits); only the SHA-256 of the whole key is stored, so a lost key cannot be recovered, only revoked and replaced.';

COMMENT ON COLUMN cardinal.ingest_keys.key_id IS 'Public identifier of the key: ''ck_'' and 12 letters or digits. Shown in listings and logs and part of the key itself (''cdl_<key_id>_<secret>''), so that a leaked key can be traced to this row; not a secret.';

COMMENT ON COLUMN cardinal.ingest_keys.app_id IS 'The app whose events this key may send; events sent with it are stored under this app.';

COMMENT ON COLUMN cardinal.ingest_keys.key_hash IS 'SHA-256 (32 bytes) of the whole key, ''cdl_<key_id>_<secret>'' in UTF-8; the key itself is never stored. Computed by the client (cardinal, cardinald), so that the key never reaches the server, whose statement log would show it. Unique, so that the daemon authenticates a request by one index lookup. Not readable by cardinal_reader.';

COMMENT ON COLUMN cardinal.ingest_keys.created_at IS 'When the key was created.';

COMMENT ON COLUMN cardinal.ingest_keys.revoked_at IS 'When the key was revoked; NULL while it is valid. A revoked key is answered with 401.';

COMMENT ON COLUMN cardinal.ingest_keys.description IS 'Free text for the humans who manage keys, e.g. which build or team uses the key.';

COMMENT ON CONSTRAINT ingest_keys_key_id_format ON cardinal.ingest_keys IS 'key_id is embedded in the key ''cdl_<key_id>_<secret>'', so it holds no ''_'' beyond its prefix, and it is short enough to read out in a listing.';

CREATE TABLE cardinal.ingest_rate_limits (
    app_id bigint NOT NULL,
    events_per_second integer,
    requests_per_second integer,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ingest_rate_limits_events_not_negative CHECK ((events_per_second >= 0)),
    CONSTRAINT ingest_rate_limits_requests_not_negative CHECK ((requests_per_second >= 0))
);

ALTER TABLE cardinal.ingest_rate_limits OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.ingest_rate_limits IS 'Per-app overrides of the rate limits cardinald enforces on POST /v1/events (a token bucket per app and daemon; 429 with Retry-After beyond). An app without a row gets the daemon''s --rate-limit-events and --rate-limit-requests. Set with ''cardinal apps limits''.';

COMMENT ON COLUMN cardinal.ingest_rate_limits.app_id IS 'The app the limits apply to, across all of its ingest keys.';

COMMENT ON COLUMN cardinal.ingest_rate_limits.events_per_second IS 'Events per second the app may send to one daemon, sustained; a burst of up to one second''s worth passes at once. NULL: the daemon''s --rate-limit-events; 0: no limit.';

COMMENT ON COLUMN cardinal.ingest_rate_limits.requests_per_second IS 'Requests per second the app may send to one daemon, sustained, with a burst of one second''s worth. NULL: the daemon''s --rate-limit-requests; 0: no limit.';

COMMENT ON COLUMN cardinal.ingest_rate_limits.updated_at IS 'When the row was last set; daemons pick a change up within their key cache''s time to live.';

COMMENT ON CONSTRAINT ingest_rate_limits_events_not_negative ON cardinal.ingest_rate_limits IS 'A rate is a count per second; 0 means no limit, NULL the daemon''s default.';

COMMENT ON CONSTRAINT ingest_rate_limits_requests_not_negative ON cardinal.ingest_rate_limits IS 'A rate is a count per second; 0 means no limit, NULL the daemon''s default.';

CREATE TABLE cardinal.report_runs (
    run_id bigint NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    parameters jsonb NOT NULL,
    status text DEFAULT 'running'::text NOT NULL,
    anomaly_count integer,
    error text,
    CONSTRAINT report_runs_anomaly_count_non_negative CHECK ((anomaly_count >= 0)),
    CONSTRAINT report_runs_finished_when_done CHECK (((finished_at IS NULL) = (status = 'running'::text))),
    CONSTRAINT report_runs_parameters_object CHECK ((jsonb_typeof(parameters) = 'object'::text)),
    CONSTRAINT report_runs_status_known CHECK ((status = ANY (ARRAY['running'::text, 'succeeded'::text, 'failed'::text])))
);

ALTER TABLE cardinal.report_runs OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_runs IS 'One row per run of the scheduled report job (`cardinal report run`): when, with which parameters, and how it ended. Its results are in report_unique_impressions, report_anomalies and report_control; the latest_* views show those of the newest succeeded run.';

COMMENT ON COLUMN cardinal.report_runs.run_id IS 'Identifier of the run, increasing with each run; stamped on every result row.';

COMMENT ON COLUMN cardinal.report_runs.started_at IS 'When the run started.';

COMMENT ON COLUMN cardinal.report_runs.finished_at IS 'When the run succeeded or failed; NULL while it is running.';

COMMENT ON COLUMN cardinal.report_runs.parameters IS 'The run''s parameters as a JSON object: app (null = all), from and to (report days, both included), as_of, include_test.';

COMMENT ON COLUMN cardinal.report_runs.status IS 'running, succeeded or failed. Only a succeeded run has result rows.';

COMMENT ON COLUMN cardinal.report_runs.anomaly_count IS 'How many anomaly findings the run stored (every severity); NULL until it succeeded.';

COMMENT ON COLUMN cardinal.report_runs.error IS 'Why a failed run failed (one line); NULL otherwise.';

CREATE TABLE cardinal.report_anomalies (
    run_id bigint NOT NULL,
    "position" integer NOT NULL,
    kind text NOT NULL,
    severity text NOT NULL,
    app_name text NOT NULL,
    campaign_id text,
    canvas_id text,
    canvas_step_id text,
    channel text,
    platform text,
    sdk_version text,
    app_version text,
    evidence jsonb NOT NULL,
    likely_cause text NOT NULL,
    CONSTRAINT report_anomalies_evidence_object CHECK ((jsonb_typeof(evidence) = 'object'::text)),
    CONSTRAINT report_anomalies_severity_known CHECK ((severity = ANY (ARRAY['info'::text, 'warning'::text, 'critical'::text])))
);

ALTER TABLE cardinal.report_anomalies OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_anomalies IS 'Findings of the anomalies report (cardinal.anomalies plus sample_ratio_mismatch from the control report) of each report run, by campaign or canvas step (0033). Read the newest with cardinal.latest_anomalies.';

COMMENT ON COLUMN cardinal.report_anomalies.run_id IS 'The run (report_runs) that found it.';

COMMENT ON COLUMN cardinal.report_anomalies."position" IS 'Position of the finding in the report''s order (most severe first), from 1.';

COMMENT ON COLUMN cardinal.report_anomalies.kind IS 'What is wrong: a kind of cardinal.anomalies, or sample_ratio_mismatch (definitions in SQL/docs/reports.md).';

COMMENT ON COLUMN cardinal.report_anomalies.severity IS 'info, warning or critical.';

COMMENT ON COLUMN cardinal.report_anomalies.app_name IS 'Name of the app.';

COMMENT ON COLUMN cardinal.report_anomalies.campaign_id IS 'Campaign of the events that show the problem; NULL for a canvas step.';

COMMENT ON COLUMN cardinal.report_anomalies.canvas_id IS 'Canvas of the canvas step whose events show the problem; NULL for a campaign (0033).';

COMMENT ON COLUMN cardinal.report_anomalies.canvas_step_id IS 'Canvas step whose events show the problem; NULL for a campaign (0033).';

COMMENT ON COLUMN cardinal.report_anomalies.channel IS 'Channel of those events; NULL for campaign-wide findings (SRM).';

COMMENT ON COLUMN cardinal.report_anomalies.platform IS 'Platform of those events; NULL when not sent or campaign-wide.';

COMMENT ON COLUMN cardinal.report_anomalies.sdk_version IS 'SDK version of those events; NULL when not sent or campaign-wide.';

COMMENT ON COLUMN cardinal.report_anomalies.app_version IS 'App version of those events; NULL when not sent or campaign-wide.';

COMMENT ON COLUMN cardinal.report_anomalies.evidence IS 'The numbers behind the finding, as a JSON object.';

COMMENT ON COLUMN cardinal.report_anomalies.likely_cause IS 'One line on the integration bug that usually causes it.';

CREATE TABLE cardinal.report_control (
    run_id bigint NOT NULL,
    "position" integer NOT NULL,
    app_name text NOT NULL,
    campaign_id text NOT NULL,
    conversion_event text,
    window_length interval NOT NULL,
    as_of timestamp with time zone NOT NULL,
    variant_id text,
    control boolean NOT NULL,
    users bigint NOT NULL,
    converters bigint,
    rate double precision,
    exposed_users bigint NOT NULL,
    users_in_several_arms bigint NOT NULL,
    difference double precision,
    difference_ci95_lower double precision,
    difference_ci95_upper double precision,
    relative_lift double precision,
    relative_lift_ci95_lower double precision,
    relative_lift_ci95_upper double precision,
    z double precision,
    p_value double precision,
    p_value_holm double precision,
    confidence double precision,
    chance_to_beat_control double precision,
    srm_chi2 double precision,
    srm_df integer,
    srm_p_value double precision,
    srm_mismatch boolean,
    srm_skipped text,
    srm_split_source text,
    CONSTRAINT report_control_srm_split_source_check CHECK ((srm_split_source = ANY (ARRAY['configured'::text, 'learned_from_sends'::text, 'unknown'::text])))
);

ALTER TABLE cardinal.report_control OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_control IS 'The control-group report of each report run: one row per campaign and arm, the control arm first; comparison columns are set on variant rows (against the campaign''s control arm), srm_* repeat the campaign''s sample ratio check on each of its rows. Read the newest with cardinal.latest_control.';

COMMENT ON COLUMN cardinal.report_control.run_id IS 'The run (report_runs) that computed the row.';

COMMENT ON COLUMN cardinal.report_control."position" IS 'Position of the row in the report''s order, from 1.';

COMMENT ON COLUMN cardinal.report_control.app_name IS 'Name of the app.';

COMMENT ON COLUMN cardinal.report_control.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_control.conversion_event IS 'The conversion event counted; NULL when none is set.';

COMMENT ON COLUMN cardinal.report_control.window_length IS 'The conversion window.';

COMMENT ON COLUMN cardinal.report_control.as_of IS 'Users whose exposure + window is after this were immature and left out.';

COMMENT ON COLUMN cardinal.report_control.variant_id IS 'The variant of the arm; NULL for the control arm (and a campaign without variants).';

COMMENT ON COLUMN cardinal.report_control.control IS 'True for the control arm.';

COMMENT ON COLUMN cardinal.report_control.users IS 'Matured users of the arm (exposed in the range, window elapsed, in one arm only).';

COMMENT ON COLUMN cardinal.report_control.converters IS 'Matured users who converted within the window; NULL without a conversion event.';

COMMENT ON COLUMN cardinal.report_control.rate IS 'converters / users; NULL when undefined.';

COMMENT ON COLUMN cardinal.report_control.exposed_users IS 'Users first exposed in the range, matured or not (in one arm only).';

COMMENT ON COLUMN cardinal.report_control.users_in_several_arms IS 'Users of the campaign excluded for being exposed to several arms.';

COMMENT ON COLUMN cardinal.report_control.difference IS 'rate − control rate (variant rows).';

COMMENT ON COLUMN cardinal.report_control.difference_ci95_lower IS 'Newcombe 95% interval of difference, lower bound.';

COMMENT ON COLUMN cardinal.report_control.difference_ci95_upper IS 'Newcombe 95% interval of difference, upper bound.';

COMMENT ON COLUMN cardinal.report_control.relative_lift IS '(rate − control rate) / control rate.';

COMMENT ON COLUMN cardinal.report_control.relative_lift_ci95_lower IS 'Katz (log risk ratio) 95% interval of relative_lift, lower bound.';

COMMENT ON COLUMN cardinal.report_control.relative_lift_ci95_upper IS 'Katz (log risk ratio) 95% interval of relative_lift, upper bound.';

COMMENT ON COLUMN cardinal.report_control.z IS 'Pooled two-proportion z statistic.';

COMMENT ON COLUMN cardinal.report_control.p_value IS 'Two-sided p-value of z.';

COMMENT ON COLUMN cardinal.report_control.p_value_holm IS 'p_value adjusted by Holm across the campaign''s variants.';

COMMENT ON COLUMN cardinal.report_control.confidence IS 'Braze''s confidence, Φ(z).';

COMMENT ON COLUMN cardinal.report_control.chance_to_beat_control IS 'P(variant rate > control rate) under Beta(1+x, 1+n−x) posteriors.';

COMMENT ON COLUMN cardinal.report_control.srm_chi2 IS 'Sample ratio check: Pearson chi-square of the arm sizes against the expected split.';

COMMENT ON COLUMN cardinal.report_control.srm_df IS 'Sample ratio check: degrees of freedom (arms − 1).';

COMMENT ON COLUMN cardinal.report_control.srm_p_value IS 'Sample ratio check: p-value.';

COMMENT ON COLUMN cardinal.report_control.srm_mismatch IS 'Sample ratio check: p_value < 0.001.';

COMMENT ON COLUMN cardinal.report_control.srm_skipped IS 'Why the sample ratio check was not run; NULL when it was.';

COMMENT ON COLUMN cardinal.report_control.srm_split_source IS 'Where the expected split of the sample ratio check came from: configured (campaigns set --split), learned_from_sends (users per arm of the campaign''s sends), or unknown (then the check was skipped); NULL in runs stored before 0027.';

CREATE TABLE cardinal.report_unique_impressions (
    run_id bigint NOT NULL,
    "position" integer NOT NULL,
    app_name text NOT NULL,
    campaign_id text,
    canvas_id text,
    canvas_step_id text,
    variant_id text,
    channel text NOT NULL,
    impressions bigint NOT NULL,
    unique_impressions bigint NOT NULL,
    unique_daily_impressions bigint NOT NULL,
    unique_recipients bigint NOT NULL,
    clicks bigint NOT NULL,
    unique_clicks bigint NOT NULL,
    dismissals bigint NOT NULL,
    unique_dismissals bigint NOT NULL,
    click_rate double precision,
    unique_click_rate double precision,
    dismissal_rate double precision,
    unique_dismissal_rate double precision,
    direct_opens bigint,
    unique_direct_opens bigint,
    influenced_opens bigint,
    total_opens bigint,
    direct_open_rate double precision,
    total_open_rate double precision
);

ALTER TABLE cardinal.report_unique_impressions OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_unique_impressions IS 'Rows of the unique-impressions report (cardinal.unique_impressions, no breakdown) of each report run, over the run''s report days. Read the newest with cardinal.latest_unique_impressions.';

COMMENT ON COLUMN cardinal.report_unique_impressions.run_id IS 'The run (report_runs) that computed the row.';

COMMENT ON COLUMN cardinal.report_unique_impressions."position" IS 'Position of the row in the report''s order, from 1.';

COMMENT ON COLUMN cardinal.report_unique_impressions.app_name IS 'Name of the app.';

COMMENT ON COLUMN cardinal.report_unique_impressions.campaign_id IS 'Campaign; NULL for a canvas step.';

COMMENT ON COLUMN cardinal.report_unique_impressions.canvas_id IS 'Canvas of a canvas step; NULL for a campaign.';

COMMENT ON COLUMN cardinal.report_unique_impressions.canvas_step_id IS 'Canvas step; NULL for a campaign.';

COMMENT ON COLUMN cardinal.report_unique_impressions.variant_id IS 'Variant; NULL for a message without variants.';

COMMENT ON COLUMN cardinal.report_unique_impressions.channel IS 'Channel of the message.';

COMMENT ON COLUMN cardinal.report_unique_impressions.impressions IS 'Impression events (control impressions excluded).';

COMMENT ON COLUMN cardinal.report_unique_impressions.unique_impressions IS 'Users with an impression in the range.';

COMMENT ON COLUMN cardinal.report_unique_impressions.unique_daily_impressions IS 'Sum over report days of the users with an impression that day.';

COMMENT ON COLUMN cardinal.report_unique_impressions.unique_recipients IS 'Sum over report days of the users who received the message that day (a send; an impression for content cards and in-app messages).';

COMMENT ON COLUMN cardinal.report_unique_impressions.clicks IS 'Click events.';

COMMENT ON COLUMN cardinal.report_unique_impressions.unique_clicks IS 'Users who clicked.';

COMMENT ON COLUMN cardinal.report_unique_impressions.dismissals IS 'Dismissal events.';

COMMENT ON COLUMN cardinal.report_unique_impressions.unique_dismissals IS 'Users who dismissed.';

COMMENT ON COLUMN cardinal.report_unique_impressions.click_rate IS 'clicks / impressions; NULL without impressions.';

COMMENT ON COLUMN cardinal.report_unique_impressions.unique_click_rate IS 'unique_clicks / unique_impressions; NULL without impressions.';

COMMENT ON COLUMN cardinal.report_unique_impressions.dismissal_rate IS 'dismissals / impressions; NULL without impressions.';

COMMENT ON COLUMN cardinal.report_unique_impressions.unique_dismissal_rate IS 'unique_dismissals / unique_impressions; NULL without impressions.';

COMMENT ON COLUMN cardinal.report_unique_impressions.direct_opens IS 'Push only: direct opens (push clicks); NULL on other channels and in runs stored before 0029.';

COMMENT ON COLUMN cardinal.report_unique_impressions.unique_direct_opens IS 'Push only: users with a direct open; NULL on other channels and in runs stored before 0029.';

COMMENT ON COLUMN cardinal.report_unique_impressions.influenced_opens IS 'Push only: users who opened the app within the influenced-open window after a send without a direct open; NULL on other channels and in runs stored before 0029.';

COMMENT ON COLUMN cardinal.report_unique_impressions.total_opens IS 'Push only: unique_direct_opens + influenced_opens; NULL on other channels and in runs stored before 0029.';

COMMENT ON COLUMN cardinal.report_unique_impressions.direct_open_rate IS 'Push only: unique_direct_opens / unique_recipients; NULL without recipients, on other channels and in runs stored before 0029.';

COMMENT ON COLUMN cardinal.report_unique_impressions.total_open_rate IS 'Push only: total_opens / unique_recipients; NULL without recipients, on other channels and in runs stored before 0029.';

CREATE TABLE cardinal.rejected_events (
    rejection_id bigint NOT NULL,
    app_id bigint NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    event_index integer NOT NULL,
    event_id text,
    code text NOT NULL,
    message text NOT NULL,
    raw text NOT NULL,
    request_id text,
    CONSTRAINT rejected_events_code_present CHECK ((code <> ''::text)),
    CONSTRAINT rejected_events_event_index_non_negative CHECK ((event_index >= 0))
);

ALTER TABLE cardinal.rejected_events OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.rejected_events IS 'Events that the ingest daemon rejected, one row per event, with the reason and the event exactly as received: bad data is evidence of an integration bug, not rubbish. The error list of the API response carries the same index, id, code and message.';

COMMENT ON COLUMN cardinal.rejected_events.rejection_id IS 'Identifier of the rejection, assigned by the database in arrival order.';

COMMENT ON COLUMN cardinal.rejected_events.app_id IS 'The app of the ingest key that sent the rejected event.';

COMMENT ON COLUMN cardinal.rejected_events.received_at IS 'When the rejected event was received (start of the storing transaction).';

COMMENT ON COLUMN cardinal.rejected_events.event_index IS '0-based position of the event in its request: the array index for JSON, the line number for NDJSON.';

COMMENT ON COLUMN cardinal.rejected_events.event_id IS 'The event''s id field as sent, when there was one; text because a rejected id need not be a UUID.';

COMMENT ON COLUMN cardinal.rejected_events.code IS 'Machine-readable reason, the same code as in the API response.';

COMMENT ON COLUMN cardinal.rejected_events.message IS 'Human-readable reason, as in the API response.';

COMMENT ON COLUMN cardinal.rejected_events.raw IS 'The event as received (its JSON text or NDJSON line), kept as text because it may not be valid JSON. Bytes that text cannot hold (NUL, invalid UTF-8) are replaced with U+FFFD by the daemon.';

COMMENT ON COLUMN cardinal.rejected_events.request_id IS 'Id of the HTTP request that carried the event, as logged by the daemon; groups one request''s rejections.';

ALTER TABLE cardinal.rejected_events ALTER COLUMN rejection_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME cardinal.rejected_events_rejection_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE cardinal.report_arm_day_users (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    control boolean NOT NULL,
    variant_key text NOT NULL,
    day date NOT NULL,
    previous_day date NOT NULL,
    users bigint NOT NULL,
    CONSTRAINT report_arm_day_users_order CHECK ((previous_day < day))
);

ALTER TABLE cardinal.report_arm_day_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_arm_day_users IS 'Report state of send_arms (0055): 0025''s day pairs per app, campaign and arm: the users whose sorted send days of the arm (report_arm_user_days) hold day with previous_day the one before it. Distinct users of from..to = sum of users with day in from..to and previous_day < from.';

COMMENT ON COLUMN cardinal.report_arm_day_users.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_arm_day_users.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_arm_day_users.control IS 'Whether the arm is control (control sends).';

COMMENT ON COLUMN cardinal.report_arm_day_users.variant_key IS 'The sends'' variant_id; '''' when it has none and for the control arm.';

COMMENT ON COLUMN cardinal.report_arm_day_users.day IS 'A report day with a send of the arm.';

COMMENT ON COLUMN cardinal.report_arm_day_users.previous_day IS 'The user''s previous send day of the arm, -infinity for the first.';

COMMENT ON COLUMN cardinal.report_arm_day_users.users IS 'How many users; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_arm_user_days (
    user_key text NOT NULL,
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    control boolean NOT NULL,
    variant_key text NOT NULL,
    day date NOT NULL,
    groups integer NOT NULL
);

ALTER TABLE cardinal.report_arm_user_days OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_arm_user_days IS 'Report state of send_arms (0055): per user, app, campaign, arm and report day with a send of that arm, how many of the user''s non-test state rows (report_user_state groups) hold the day. Kept by triggers on report_user_state; the days under report_arm_day_users.';

COMMENT ON COLUMN cardinal.report_arm_user_days.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_arm_user_days.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_arm_user_days.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_arm_user_days.control IS 'Whether the arm is control (control sends).';

COMMENT ON COLUMN cardinal.report_arm_user_days.variant_key IS 'The sends'' variant_id; '''' when it has none and for the control arm (variant ids are never empty).';

COMMENT ON COLUMN cardinal.report_arm_user_days.day IS 'A report day with a send of the arm.';

COMMENT ON COLUMN cardinal.report_arm_user_days.groups IS 'How many of the user''s report_user_state rows (non-test groups of the campaign) hold the day; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_campaign_cohort_days (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    variant_key text NOT NULL,
    first_day date NOT NULL,
    ordinal smallint NOT NULL,
    converters bigint NOT NULL
);

ALTER TABLE cardinal.report_campaign_cohort_days OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_campaign_cohort_days IS 'Converters of report_campaign_receipts per app, campaign, variant, day of first receipt and conversion goal (0045): the sum over a range''s days is campaign_conversions'' converters. Kept by triggers of report_campaign_receipts; no row without converters.';

COMMENT ON COLUMN cardinal.report_campaign_cohort_days.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_campaign_cohort_days.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_campaign_cohort_days.variant_key IS 'The variant, '''' for none (report_campaign_receipts.variant_key).';

COMMENT ON COLUMN cardinal.report_campaign_cohort_days.first_day IS 'The report day (campaign''s report time zone) of the first receipt: received_days[1].';

COMMENT ON COLUMN cardinal.report_campaign_cohort_days.ordinal IS 'The conversion goal''s ordinal (campaign_conversion_goals), 1 = primary.';

COMMENT ON COLUMN cardinal.report_campaign_cohort_days.converters IS 'The number of rows that converted to the goal within the window (window_revenue element not null).';

CREATE TABLE cardinal.report_campaign_cohort_revenue (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    variant_key text NOT NULL,
    first_day date NOT NULL,
    ordinal smallint NOT NULL,
    currency text NOT NULL,
    amount numeric NOT NULL,
    converters bigint NOT NULL
);

ALTER TABLE cardinal.report_campaign_cohort_revenue OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_campaign_cohort_revenue IS 'Revenue of report_campaign_receipts per app, campaign, variant, day of first receipt, conversion goal and currency (0045): the sum over a range''s days is campaign_conversions'' revenue in that currency. Kept by triggers of report_campaign_receipts; no row without a converter with a value in the currency.';

COMMENT ON COLUMN cardinal.report_campaign_cohort_revenue.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_campaign_cohort_revenue.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_campaign_cohort_revenue.variant_key IS 'The variant, '''' for none (report_campaign_receipts.variant_key).';

COMMENT ON COLUMN cardinal.report_campaign_cohort_revenue.first_day IS 'The report day (campaign''s report time zone) of the first receipt: received_days[1].';

COMMENT ON COLUMN cardinal.report_campaign_cohort_revenue.ordinal IS 'The conversion goal''s ordinal (campaign_conversion_goals), 1 = primary.';

COMMENT ON COLUMN cardinal.report_campaign_cohort_revenue.currency IS 'ISO 4217 code; XXX for values sent without one.';

COMMENT ON COLUMN cardinal.report_campaign_cohort_revenue.amount IS 'The sum of the rows'' values in the currency within their windows (window_revenue).';

COMMENT ON COLUMN cardinal.report_campaign_cohort_revenue.converters IS 'The number of rows with a value in the currency within their window: the currency is reported while it is positive, even when the amounts sum to zero.';

CREATE TABLE cardinal.report_campaign_receipt_days (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    variant_key text NOT NULL,
    day date NOT NULL,
    recipients bigint NOT NULL
);

ALTER TABLE cardinal.report_campaign_receipt_days OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_campaign_receipt_days IS 'Counts of report_campaign_receipts per app, campaign, variant and report day (0045): the sum over a range''s days is campaign_conversions'' unique_recipients. Kept by triggers of report_campaign_receipts; no row for a day without recipients.';

COMMENT ON COLUMN cardinal.report_campaign_receipt_days.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_campaign_receipt_days.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_campaign_receipt_days.variant_key IS 'The variant, '''' for none (report_campaign_receipts.variant_key).';

COMMENT ON COLUMN cardinal.report_campaign_receipt_days.day IS 'The report day (campaign''s report time zone).';

COMMENT ON COLUMN cardinal.report_campaign_receipt_days.recipients IS 'The number of report_campaign_receipts rows whose received_days hold the day.';

CREATE TABLE cardinal.report_campaign_receipts (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    variant_key text NOT NULL,
    user_key text NOT NULL,
    first_received_at timestamp with time zone NOT NULL,
    received_days date[] NOT NULL,
    converted_at timestamp with time zone[] NOT NULL,
    window_revenue jsonb DEFAULT '[null, null, null, null]'::jsonb NOT NULL,
    CONSTRAINT report_campaign_receipts_four_goals CHECK ((cardinality(converted_at) = 4)),
    CONSTRAINT report_campaign_receipts_four_outcomes CHECK ((jsonb_array_length(window_revenue) = 4))
);

ALTER TABLE cardinal.report_campaign_receipts OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_campaign_receipts IS 'Report state of campaign_conversions (0043): per app, campaign, variant and user that received it (non-test, non-control; an impression for content cards and in-app messages, a send otherwise), the first receipt, the report days of receipt and per conversion goal the first conversion at or after the first receipt. Kept by the fold; campaign_conversions reads it.';

COMMENT ON COLUMN cardinal.report_campaign_receipts.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_campaign_receipts.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_campaign_receipts.variant_key IS 'The variant of the receipts, '''' for none (coalesce(variant_id, ''''), so that it can be in the key).';

COMMENT ON COLUMN cardinal.report_campaign_receipts.user_key IS 'The user (resolved user key, 0032).';

COMMENT ON COLUMN cardinal.report_campaign_receipts.first_received_at IS 'Time of the user''s first receipt of the campaign × variant, any channel.';

COMMENT ON COLUMN cardinal.report_campaign_receipts.received_days IS 'Report days (campaign''s report time zone) with a receipt, any channel: sorted, distinct.';

COMMENT ON COLUMN cardinal.report_campaign_receipts.converted_at IS 'Per conversion goal ordinal 1..4 (campaign_conversion_goals), the time of the user''s first non-test conversion of that goal''s event at or after first_received_at; NULL when none or no such goal.';

COMMENT ON COLUMN cardinal.report_campaign_receipts.window_revenue IS 'Per conversion goal ordinal k, element k - 1 of a JSON array of four: null when the user did not convert to that goal within the window (report_window_end of first_received_at in the campaign''s report time zone), else an object of currency to the sum of the values of the goal''s non-test conversions within [first_received_at, window end] ({} when none had a value) (0045).';

CREATE TABLE cardinal.report_control_acting_users (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    canvas_id text NOT NULL,
    user_key text NOT NULL
);

ALTER TABLE cardinal.report_control_acting_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_control_acting_users IS 'Report state of the anomalies report (0071): the users of a campaign or canvas with a control impression or control send in any of its report groups (test ones too) and a click or dismissal in a non-test one. The interaction counts leave them out; the report judges their clicks and dismissals from their rows, for the range. Kept by triggers on report_user_state.';

COMMENT ON COLUMN cardinal.report_control_acting_users.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_control_acting_users.campaign_id IS 'The campaign; '''' for a canvas.';

COMMENT ON COLUMN cardinal.report_control_acting_users.canvas_id IS 'The canvas; '''' for a campaign.';

COMMENT ON COLUMN cardinal.report_control_acting_users.user_key IS 'The user (events.user_key).';

CREATE TABLE cardinal.report_control_exposure_days (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    exposed_day date NOT NULL,
    control boolean NOT NULL,
    variant_key text NOT NULL,
    second_arm_day date NOT NULL,
    users bigint NOT NULL,
    converters bigint NOT NULL
);

ALTER TABLE cardinal.report_control_exposure_days OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_control_exposure_days IS 'Report state of the control report (0046): per app, campaign, local exposure day, arm and local day of the second arm, the report_control_exposures rows and those of them converted within the campaign''s window (report_window_end, in the campaign''s report time zone). An aggregate of report_control_exposures kept by triggers; control_arms reads it for the days matured at as_of.';

COMMENT ON COLUMN cardinal.report_control_exposure_days.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_control_exposure_days.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_control_exposure_days.exposed_day IS 'Local day of exposed_at in the campaign''s report time zone (else the app''s).';

COMMENT ON COLUMN cardinal.report_control_exposure_days.control IS 'Whether the first exposure was in the control arm.';

COMMENT ON COLUMN cardinal.report_control_exposure_days.variant_key IS 'Variant of the first exposure''s arm; '''' when it has none (the control arm; variant ids are never empty).';

COMMENT ON COLUMN cardinal.report_control_exposure_days.second_arm_day IS 'Local day of second_arm_at in the same zone; ''infinity'' when the users met one arm only.';

COMMENT ON COLUMN cardinal.report_control_exposure_days.users IS 'How many users (report_control_exposures rows).';

COMMENT ON COLUMN cardinal.report_control_exposure_days.converters IS 'How many of them converted within the campaign''s configured window: converted_at <= report_window_end(exposed_at, window, zone).';

CREATE TABLE cardinal.report_control_exposures (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    user_key text NOT NULL,
    exposed_at timestamp with time zone NOT NULL,
    control boolean NOT NULL,
    variant_id text,
    second_arm_at timestamp with time zone,
    second_arm_control boolean,
    second_arm_variant_id text,
    conversion_event text,
    converted_at timestamp with time zone,
    further_converted_at timestamp with time zone[],
    CONSTRAINT report_control_exposures_arms_ordered CHECK ((second_arm_at >= exposed_at)),
    CONSTRAINT report_control_exposures_further_goals_by_ordinal CHECK (((further_converted_at IS NULL) OR ((cardinality(further_converted_at) = 4) AND (further_converted_at[1] IS NULL))))
);

ALTER TABLE cardinal.report_control_exposures OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_control_exposures IS 'Report state of the control report (0040): per app, campaign and user exposed to it (non-test impressions; sends too for push), the first exposure and its arm, when a second arm was first seen, and the first conversion of the campaign''s conversion event at or after the exposure. Kept by the fold; control_arms reads it.';

COMMENT ON COLUMN cardinal.report_control_exposures.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_control_exposures.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_control_exposures.user_key IS 'The user (resolved user key, 0032).';

COMMENT ON COLUMN cardinal.report_control_exposures.exposed_at IS 'Time of the user''s first exposure to the campaign in any arm.';

COMMENT ON COLUMN cardinal.report_control_exposures.control IS 'Whether the first exposure was in the control arm.';

COMMENT ON COLUMN cardinal.report_control_exposures.variant_id IS 'Variant of the first exposure''s arm; NULL for the control arm.';

COMMENT ON COLUMN cardinal.report_control_exposures.second_arm_at IS 'Time of the first exposure to a second distinct arm; NULL when the user met one arm only.';

COMMENT ON COLUMN cardinal.report_control_exposures.second_arm_control IS 'Whether the second arm is the control arm.';

COMMENT ON COLUMN cardinal.report_control_exposures.second_arm_variant_id IS 'Variant of the second arm; NULL for the control arm or when there is none.';

COMMENT ON COLUMN cardinal.report_control_exposures.conversion_event IS 'The campaign''s conversion event (campaign_settings) that converted_at is of; NULL when none is set.';

COMMENT ON COLUMN cardinal.report_control_exposures.converted_at IS 'Time of the user''s first non-test conversion of conversion_event at or after exposed_at; NULL when none.';

COMMENT ON COLUMN cardinal.report_control_exposures.further_converted_at IS 'Per further conversion goal, element k for ordinal k = 2..4 (campaign_conversion_goals; element 1 is always NULL, the primary being converted_at): the time of the user''s first non-test conversion of that goal''s event at or after exposed_at, NULL when none or no such goal. The whole array is NULL when the user converted to no further goal (0049).';

CREATE TABLE cardinal.report_control_goal_days (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    exposed_day date NOT NULL,
    control boolean NOT NULL,
    variant_key text NOT NULL,
    second_arm_day date NOT NULL,
    ordinal smallint NOT NULL,
    converters bigint NOT NULL,
    CONSTRAINT report_control_goal_days_further_goal CHECK ((ordinal BETWEEN 2 AND 4))
);

ALTER TABLE cardinal.report_control_goal_days OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_control_goal_days IS 'Report state of the control report''s further conversion goals (0049): per app, campaign, local exposure day, arm, local day of the second arm (report_control_exposure_days'' key, which holds the users) and goal ordinal 2..4, the report_control_exposures rows converted to that goal within the campaign''s window. An aggregate of report_control_exposures kept by triggers; no row without converters; control_arm_conversions reads it for the days matured at as_of.';

COMMENT ON COLUMN cardinal.report_control_goal_days.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_control_goal_days.campaign_id IS 'The campaign.';

COMMENT ON COLUMN cardinal.report_control_goal_days.exposed_day IS 'Local day of exposed_at in the campaign''s report time zone (else the app''s).';

COMMENT ON COLUMN cardinal.report_control_goal_days.control IS 'Whether the first exposure was in the control arm.';

COMMENT ON COLUMN cardinal.report_control_goal_days.variant_key IS 'Variant of the first exposure''s arm; '''' when it has none (the control arm).';

COMMENT ON COLUMN cardinal.report_control_goal_days.second_arm_day IS 'Local day of second_arm_at in the same zone; ''infinity'' when the users met one arm only.';

COMMENT ON COLUMN cardinal.report_control_goal_days.ordinal IS 'The further conversion goal''s ordinal, 2 to 4 (campaign_conversion_goals).';

COMMENT ON COLUMN cardinal.report_control_goal_days.converters IS 'How many rows converted to the goal within the campaign''s configured window: further_converted_at[ordinal] <= report_window_end(exposed_at, window, zone).';

CREATE TABLE cardinal.report_conversion_state (
    app_id bigint NOT NULL,
    user_key text NOT NULL,
    conversion_name text NOT NULL,
    test boolean NOT NULL,
    times timestamp with time zone[] NOT NULL
);

ALTER TABLE cardinal.report_conversion_state OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_conversion_state IS 'Report state of conversions: the times of each user''s conversions of each name, folded from the stored events (0015). The control report looks converters up here.';

COMMENT ON COLUMN cardinal.report_conversion_state.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_conversion_state.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_conversion_state.conversion_name IS 'Name of the conversion event.';

COMMENT ON COLUMN cardinal.report_conversion_state.test IS 'Whether these are test events.';

COMMENT ON COLUMN cardinal.report_conversion_state.times IS 'Event times of the conversions, unordered.';

CREATE TABLE cardinal.report_conversion_value_state (
    app_id bigint NOT NULL,
    user_key text NOT NULL,
    conversion_name text NOT NULL,
    test boolean NOT NULL,
    times timestamp with time zone[] NOT NULL,
    amounts numeric[] NOT NULL,
    currencies text[] NOT NULL
);

ALTER TABLE cardinal.report_conversion_value_state OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_conversion_value_state IS 'Report state of conversion values: per user and conversion name, the time, value and currency of each conversion that had a value, folded from the stored events (0030), for the revenue of campaign_conversions. The i-th elements of times, amounts and currencies belong to one conversion. Rows go when the user''s report_conversion_state row of the name goes.';

COMMENT ON COLUMN cardinal.report_conversion_value_state.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_conversion_value_state.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_conversion_value_state.conversion_name IS 'Name of the conversion event.';

COMMENT ON COLUMN cardinal.report_conversion_value_state.test IS 'Whether these are test events.';

COMMENT ON COLUMN cardinal.report_conversion_value_state.times IS 'Event times of the conversions with a value.';

COMMENT ON COLUMN cardinal.report_conversion_value_state.amounts IS 'Their values (events.value), in the order of times.';

COMMENT ON COLUMN cardinal.report_conversion_value_state.currencies IS 'Their currencies (events.currency; ''XXX'', ISO 4217''s "no currency", when none was sent), in the order of times.';

CREATE TABLE cardinal.report_dismissal_day_counts (
    finding_id bigint NOT NULL,
    day date NOT NULL,
    dismissals bigint NOT NULL
);

ALTER TABLE cardinal.report_dismissal_day_counts OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_dismissal_day_counts IS 'Report state of the anomalies report (0074): the content-card dismissals that carried a message id per finding group and report day (report_dismissal_state, non-test report groups), for repeated_dismissals'' dismissals. Leaves out the users of report_dismissal_repeat_users. Kept by triggers on report_dismissal_state.';

COMMENT ON COLUMN cardinal.report_dismissal_day_counts.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_dismissal_day_counts.day IS 'The report day.';

COMMENT ON COLUMN cardinal.report_dismissal_day_counts.dismissals IS 'How many dismissals; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_dismissal_state (
    group_id bigint NOT NULL,
    user_key text NOT NULL,
    message_id text NOT NULL,
    day date NOT NULL,
    dismissals integer NOT NULL
);

ALTER TABLE cardinal.report_dismissal_state OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_dismissal_state IS 'Report state of dismissals: per report group, user, message id and report day, how many dismissals carried that message id (0027), for the repeated_dismissals anomaly. Dismissals without a message_id are not kept. Rows go when the user''s report_user_state row of the group goes.';

COMMENT ON COLUMN cardinal.report_dismissal_state.group_id IS 'The report group (report_groups.group_id).';

COMMENT ON COLUMN cardinal.report_dismissal_state.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_dismissal_state.message_id IS 'The message (card) dismissed (events.message_id).';

COMMENT ON COLUMN cardinal.report_dismissal_state.day IS 'The report day of the dismissals.';

COMMENT ON COLUMN cardinal.report_dismissal_state.dismissals IS 'Dismissals of that message by the user on that day.';

CREATE TABLE cardinal.report_dismissal_day_users (
    finding_id bigint NOT NULL,
    day date NOT NULL,
    previous_day date NOT NULL,
    users bigint NOT NULL,
    CONSTRAINT report_dismissal_day_users_order CHECK ((previous_day < day))
);

ALTER TABLE cardinal.report_dismissal_day_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_dismissal_day_users IS 'Report state of the anomalies report (0074): 0025''s day pairs per finding group of each user''s days with a content-card dismissal that carried a message id (report_dismissal_state, non-test report groups), for repeated_dismissals'' users. Leaves out the users of report_dismissal_repeat_users. Distinct users of from..to = sum of users with day in from..to and previous_day < from. Kept by triggers on report_dismissal_state.';

COMMENT ON COLUMN cardinal.report_dismissal_day_users.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_dismissal_day_users.day IS 'A report day with a dismissal.';

COMMENT ON COLUMN cardinal.report_dismissal_day_users.previous_day IS 'The user''s previous day with a dismissal in the finding group, -infinity for the first.';

COMMENT ON COLUMN cardinal.report_dismissal_day_users.users IS 'How many users; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_dismissal_repeat_users (
    finding_id bigint NOT NULL,
    user_key text NOT NULL
);

ALTER TABLE cardinal.report_dismissal_repeat_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_dismissal_repeat_users IS 'Report state of the anomalies report (0074): the users who dismissed one card (message id) of a finding group more than once over all their days (report_dismissal_state, non-test report groups). The dismissal counts leave them out; repeated_dismissals judges them from their rows, for they may repeat in a range. Kept by triggers on report_dismissal_state.';

COMMENT ON COLUMN cardinal.report_dismissal_repeat_users.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_dismissal_repeat_users.user_key IS 'The user (events.user_key).';

CREATE TABLE cardinal.report_finding_day_users (
    finding_id bigint NOT NULL,
    kind text NOT NULL,
    day date NOT NULL,
    previous_day date NOT NULL,
    users bigint NOT NULL,
    CONSTRAINT report_finding_day_users_kind_known CHECK ((kind = ANY (ARRAY['impression'::text, 'dismissal'::text, 'control_impression'::text, 'exposure'::text]))),
    CONSTRAINT report_finding_day_users_order CHECK ((previous_day < day))
);

ALTER TABLE cardinal.report_finding_day_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_finding_day_users IS 'Report state of the anomalies report (0069): 0025''s day pairs per finding group and kind of day (report_finding_kind_days) over the non-test report groups: the users whose sorted days of the kind in the finding group hold day with previous_day the one before it. Distinct users of from..to = sum of users with day in from..to and previous_day < from. Kept by triggers on report_user_state.';

COMMENT ON COLUMN cardinal.report_finding_day_users.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_finding_day_users.kind IS 'impression, dismissal, control_impression or exposure (report_finding_kind_days).';

COMMENT ON COLUMN cardinal.report_finding_day_users.day IS 'A report day with a day of the kind.';

COMMENT ON COLUMN cardinal.report_finding_day_users.previous_day IS 'The user''s previous day of the kind in the finding group, -infinity for the first.';

COMMENT ON COLUMN cardinal.report_finding_day_users.users IS 'How many users; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_findings (
    finding_id bigint NOT NULL,
    app_id bigint NOT NULL,
    campaign_id text,
    canvas_id text,
    canvas_step_id text,
    channel text NOT NULL,
    platform text,
    sdk_version text,
    app_version text
);

ALTER TABLE cardinal.report_findings OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_findings IS 'Finding groups of the anomalies report (0069): each distinct app × campaign or canvas step × channel × platform × SDK version × app version of report_groups (a report group without variant and test flag). Made with the report group; never deleted, so a finding_id stays valid.';

COMMENT ON COLUMN cardinal.report_findings.finding_id IS 'Key of the finding group.';

COMMENT ON COLUMN cardinal.report_findings.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_findings.campaign_id IS 'The campaign, NULL for a canvas step.';

COMMENT ON COLUMN cardinal.report_findings.canvas_id IS 'The canvas, NULL for a campaign.';

COMMENT ON COLUMN cardinal.report_findings.canvas_step_id IS 'The canvas step.';

COMMENT ON COLUMN cardinal.report_findings.channel IS 'The channel (events.channel).';

COMMENT ON COLUMN cardinal.report_findings.platform IS 'The platform.';

COMMENT ON COLUMN cardinal.report_findings.sdk_version IS 'The SDK version.';

COMMENT ON COLUMN cardinal.report_findings.app_version IS 'The app version.';

ALTER TABLE cardinal.report_findings ALTER COLUMN finding_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME cardinal.report_findings_finding_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE cardinal.report_fold_queue (
    app_id bigint NOT NULL,
    id uuid NOT NULL,
    "time" timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    type text NOT NULL,
    channel text,
    campaign_id text,
    canvas_id text,
    canvas_step_id text,
    variant_id text,
    control boolean NOT NULL,
    platform text,
    sdk_version text,
    app_version text,
    test boolean NOT NULL,
    user_key text NOT NULL,
    session_id text,
    message_id text,
    conversion_name text,
    placement_id text,
    button_id text,
    value numeric,
    currency text
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='10000', autovacuum_vacuum_insert_scale_factor='0', autovacuum_vacuum_insert_threshold='10000');

ALTER TABLE cardinal.report_fold_queue OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_fold_queue IS 'Events waiting for the fold outside the pending read: the columns of cardinal.events the state is made of. requeue_report_state (a rebuild, a time zone change, a retention drop) queues folded events again and moves here the transactions no fold has taken yet (0078); a re-key of an identity (requeue_identity_state) queues folded events again. Emptied by fold_report_state(), in parts when long. Other stored events the fold reads from cardinal.events by report_fold_watermark.';

COMMENT ON COLUMN cardinal.report_fold_queue.app_id IS 'events.app_id of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.id IS 'events.id of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue."time" IS 'events.time of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.received_at IS 'events.received_at: the folding lag is measured from it.';

COMMENT ON COLUMN cardinal.report_fold_queue.type IS 'events.type of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.channel IS 'events.channel of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.campaign_id IS 'events.campaign_id of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.canvas_id IS 'events.canvas_id of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.canvas_step_id IS 'events.canvas_step_id of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.variant_id IS 'events.variant_id of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.control IS 'events.control of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.platform IS 'events.platform of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.sdk_version IS 'events.sdk_version of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.app_version IS 'events.app_version of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.test IS 'events.test of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.user_key IS 'events.user_key of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.session_id IS 'events.session_id of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.message_id IS 'events.message_id of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.conversion_name IS 'events.conversion_name of the queued event.';

COMMENT ON COLUMN cardinal.report_fold_queue.placement_id IS 'events.placement_id of the queued event (0038).';

COMMENT ON COLUMN cardinal.report_fold_queue.button_id IS 'events.button_id of the queued event (0038).';

COMMENT ON COLUMN cardinal.report_fold_queue.value IS 'events.value of the queued event (0038).';

COMMENT ON COLUMN cardinal.report_fold_queue.currency IS 'events.currency of the queued event (0038).';

CREATE TABLE cardinal.report_fold_watermark (
    folded_below bigint NOT NULL,
    only_row boolean DEFAULT true NOT NULL,
    next_xid bigint NOT NULL,
    running_xids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    CONSTRAINT report_fold_watermark_only_row_check CHECK (only_row)
);

ALTER TABLE cardinal.report_fold_watermark OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_fold_watermark IS 'One row: how far the report-state fold has come in the transactions that stored events.';

COMMENT ON COLUMN cardinal.report_fold_watermark.folded_below IS 'Every event whose stored_xid is below this is folded into the report state (or re-queued in report_fold_queue); at or above it, an event is unfolded unless its stored_xid is in report_folded_xids (then it is folded, or queued by a rebuild: 0078).';

COMMENT ON COLUMN cardinal.report_fold_watermark.only_row IS 'Always true: keeps the table to one row.';

COMMENT ON COLUMN cardinal.report_fold_watermark.next_xid IS 'The last fold''s snapshot xmax: a transaction at or above it began after that fold, so its events are unfolded (0041).';

COMMENT ON COLUMN cardinal.report_fold_watermark.running_xids IS 'The transactions running when the last fold took its snapshot (between folded_below and next_xid): the only ones below next_xid whose events can still be unfolded (0041).';

CREATE TABLE cardinal.report_folded_xids (
    xid bigint NOT NULL
);

ALTER TABLE cardinal.report_folded_xids OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_folded_xids IS 'Transactions at or above report_fold_watermark.folded_below whose events the pending read must not take: folded already (they committed before a fold while an older writer was still running), or moved into report_fold_queue whole by a rebuild (requeue_report_state, 0078). Pruned as the watermark passes them.';

COMMENT ON COLUMN cardinal.report_folded_xids.xid IS 'events.stored_xid of the folded transaction.';

ALTER TABLE cardinal.report_groups ALTER COLUMN group_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME cardinal.report_groups_group_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE cardinal.report_interaction_day_events (
    finding_id bigint NOT NULL,
    type text NOT NULL,
    day date NOT NULL,
    events bigint NOT NULL,
    events_without_impression bigint NOT NULL,
    CONSTRAINT report_interaction_day_events_type_known CHECK ((type = ANY (ARRAY['click'::text, 'dismissal'::text])))
);

ALTER TABLE cardinal.report_interaction_day_events OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_interaction_day_events IS 'Report state of the anomalies report (0071): the clicks and dismissals per finding group (content cards, in-app messages and banners) and report day over the non-test report groups, of the users never exposed to the campaign''s (canvas''s) control arm, and how many came without an impression. Kept by triggers on report_user_state.';

COMMENT ON COLUMN cardinal.report_interaction_day_events.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_interaction_day_events.type IS 'click or dismissal.';

COMMENT ON COLUMN cardinal.report_interaction_day_events.day IS 'The report day.';

COMMENT ON COLUMN cardinal.report_interaction_day_events.events IS 'How many; a row that reaches 0 is deleted in the same statement.';

COMMENT ON COLUMN cardinal.report_interaction_day_events.events_without_impression IS 'How many of them came before the step''s first impression, or in a step without one.';

CREATE TABLE cardinal.report_interaction_day_users (
    finding_id bigint NOT NULL,
    kind text NOT NULL,
    day date NOT NULL,
    previous_day date NOT NULL,
    users bigint NOT NULL,
    CONSTRAINT report_interaction_day_users_kind_known CHECK ((kind = ANY (ARRAY['click'::text, 'click_without_impression'::text, 'dismissal'::text, 'dismissal_without_impression'::text]))),
    CONSTRAINT report_interaction_day_users_order CHECK ((previous_day < day))
);

ALTER TABLE cardinal.report_interaction_day_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_interaction_day_users IS 'Report state of the anomalies report (0071): 0025''s day pairs per finding group (content cards, in-app messages and banners) of each user''s click, click_without_impression, dismissal and dismissal_without_impression days over the non-test report groups (report_row_interactions), for the users never exposed to the campaign''s (canvas''s) control arm. Distinct users of from..to = sum of users with day in from..to and previous_day < from. Kept by triggers on report_user_state.';

COMMENT ON COLUMN cardinal.report_interaction_day_users.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_interaction_day_users.kind IS 'click, click_without_impression, dismissal or dismissal_without_impression (before the step''s first impression, or in a step without one).';

COMMENT ON COLUMN cardinal.report_interaction_day_users.day IS 'A report day with an interaction of the kind.';

COMMENT ON COLUMN cardinal.report_interaction_day_users.previous_day IS 'The user''s previous day of the kind in the finding group, -infinity for the first.';

COMMENT ON COLUMN cardinal.report_interaction_day_users.users IS 'How many users; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_part_state (
    group_id bigint NOT NULL,
    user_key text NOT NULL,
    part text NOT NULL,
    day date NOT NULL,
    impressions integer NOT NULL,
    clicks integer NOT NULL,
    dismissals integer NOT NULL,
    sends integer NOT NULL
);

ALTER TABLE cardinal.report_part_state OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_part_state IS 'Report state of message parts (0031): per report group, user, part (report_message_part) and report day, the user''s non-control events of each kind on that part, for the unique-impressions breakdowns by button_id, placement_id and message_id. Rows go when the user''s report_user_state row of the group goes.';

COMMENT ON COLUMN cardinal.report_part_state.group_id IS 'The report group (report_groups.group_id).';

COMMENT ON COLUMN cardinal.report_part_state.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_part_state.part IS 'The card (message_id), banner placement (placement_id) or in-app message button (button_id, clicks only) of the events; '''' when they have none.';

COMMENT ON COLUMN cardinal.report_part_state.day IS 'The report day of the events.';

COMMENT ON COLUMN cardinal.report_part_state.impressions IS 'Impressions on that part by the user that day.';

COMMENT ON COLUMN cardinal.report_part_state.clicks IS 'Clicks on that part by the user that day.';

COMMENT ON COLUMN cardinal.report_part_state.dismissals IS 'Dismissals of that part by the user that day.';

COMMENT ON COLUMN cardinal.report_part_state.sends IS 'Sends of that part to the user that day.';

CREATE TABLE cardinal.report_rows (
    row_id bigint NOT NULL,
    app_id bigint NOT NULL,
    campaign_id text,
    canvas_id text,
    canvas_step_id text,
    variant_id text,
    channel text NOT NULL,
    row_key text GENERATED ALWAYS AS (cardinal.report_row_key(app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel)) STORED NOT NULL
);

ALTER TABLE cardinal.report_rows OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_rows IS 'The rows of the unique-impressions report that events have had: app × campaign (or canvas step) × variant × channel. Made by the fold, never deleted, so a row_id stays valid.';

COMMENT ON COLUMN cardinal.report_rows.row_id IS 'Identity of the row; report_row_user_days and report_row_day_users refer to it.';

COMMENT ON COLUMN cardinal.report_rows.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_rows.campaign_id IS 'Campaign of the events; NULL for canvas steps.';

COMMENT ON COLUMN cardinal.report_rows.canvas_id IS 'Canvas of the events; NULL for campaigns.';

COMMENT ON COLUMN cardinal.report_rows.canvas_step_id IS 'Canvas step of the events; NULL for campaigns.';

COMMENT ON COLUMN cardinal.report_rows.variant_id IS 'Variant of the events as sent.';

COMMENT ON COLUMN cardinal.report_rows.channel IS 'Channel of the events.';

COMMENT ON COLUMN cardinal.report_rows.row_key IS 'The other columns as one text (report_row_key), unique: how rows are found.';

CREATE TABLE cardinal.report_row_user_days (
    row_id bigint NOT NULL,
    user_key text NOT NULL,
    impression_days date[] DEFAULT '{}'::date[] NOT NULL,
    click_days date[] DEFAULT '{}'::date[] NOT NULL,
    dismissal_days date[] DEFAULT '{}'::date[] NOT NULL,
    send_days date[] DEFAULT '{}'::date[] NOT NULL
);

ALTER TABLE cardinal.report_row_user_days OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_row_user_days IS 'Report state: each user''s report days per unique-impressions row (report_rows), from the non-control, non-test events; sorted, without repeats. Kept so that the fold knows which day pairs a new day changes (report_row_day_users).';

COMMENT ON COLUMN cardinal.report_row_user_days.row_id IS 'The report row (report_rows.row_id).';

COMMENT ON COLUMN cardinal.report_row_user_days.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_row_user_days.impression_days IS 'Report days with impressions, sorted.';

COMMENT ON COLUMN cardinal.report_row_user_days.click_days IS 'Report days with clicks, sorted.';

COMMENT ON COLUMN cardinal.report_row_user_days.dismissal_days IS 'Report days with dismissals, sorted.';

COMMENT ON COLUMN cardinal.report_row_user_days.send_days IS 'Report days with sends, sorted.';

ALTER TABLE cardinal.report_rows ALTER COLUMN row_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME cardinal.report_rows_row_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE cardinal.report_runs ALTER COLUMN run_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME cardinal.report_runs_run_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE cardinal.report_session_apart_users (
    finding_id bigint NOT NULL,
    user_key text NOT NULL
);

ALTER TABLE cardinal.report_session_apart_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_session_apart_users IS 'Report state of the anomalies report (0072): the users with a session of a finding group (non-test report groups) that spans report days. report_session_units and report_session_day_users leave them out; the report judges their sessions from their rows, for the range. Kept by triggers on report_session_state.';

COMMENT ON COLUMN cardinal.report_session_apart_users.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_session_apart_users.user_key IS 'The user (events.user_key).';

CREATE TABLE cardinal.report_session_state (
    group_id bigint NOT NULL,
    user_key text NOT NULL,
    session_id text NOT NULL,
    day date NOT NULL,
    impressions integer NOT NULL,
    message_ids text[]
);

ALTER TABLE cardinal.report_session_state OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_session_state IS 'Report state of sessions: impressions (control ones included) per user, session and report day in each report group, and the distinct message ids shown, for the repeated_impressions anomaly. Impressions without a session_id are kept under session_id '''' (since 0027), one row per user and report day.';

COMMENT ON COLUMN cardinal.report_session_state.group_id IS 'The report group (report_groups.group_id).';

COMMENT ON COLUMN cardinal.report_session_state.user_key IS 'The user (events.user_key).';

COMMENT ON COLUMN cardinal.report_session_state.session_id IS 'The SDK session (events.session_id); '''' for the impressions without one (since 0027).';

COMMENT ON COLUMN cardinal.report_session_state.day IS 'The report day of the impressions.';

COMMENT ON COLUMN cardinal.report_session_state.impressions IS 'Impressions in the session on that day.';

COMMENT ON COLUMN cardinal.report_session_state.message_ids IS 'Message ids of those impressions, unordered and possibly repeated; NULL when none carried one.';

CREATE TABLE cardinal.report_session_day_users (
    finding_id bigint NOT NULL,
    kind text NOT NULL,
    day date NOT NULL,
    previous_day date NOT NULL,
    users bigint NOT NULL,
    CONSTRAINT report_session_day_users_kind_known CHECK ((kind = ANY (ARRAY['session'::text, 'repeated'::text]))),
    CONSTRAINT report_session_day_users_order CHECK ((previous_day < day))
);

ALTER TABLE cardinal.report_session_day_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_session_day_users IS 'Report state of the anomalies report (0072): 0025''s day pairs per finding group of each user''s days with a session (session) and with a repeated session (repeated), of the sessions report_session_units counts. Distinct users of from..to = sum of users with day in from..to and previous_day < from. Kept by triggers on report_session_state.';

COMMENT ON COLUMN cardinal.report_session_day_users.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_session_day_users.kind IS 'session or repeated.';

COMMENT ON COLUMN cardinal.report_session_day_users.day IS 'A report day with a session of the kind.';

COMMENT ON COLUMN cardinal.report_session_day_users.previous_day IS 'The user''s previous day of the kind in the finding group, -infinity for the first.';

COMMENT ON COLUMN cardinal.report_session_day_users.users IS 'How many users; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_session_units (
    finding_id bigint NOT NULL,
    day date NOT NULL,
    impressions bigint NOT NULL,
    allowed bigint NOT NULL,
    without_session boolean NOT NULL,
    units bigint NOT NULL
);

ALTER TABLE cardinal.report_session_units OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_session_units IS 'Report state of the anomalies report (0072): the sessions of each finding group (content cards, in-app messages, banners, feature flags; non-test report groups) whose rows lie on one report day, by day, impressions and allowed impressions, of the users none of whose sessions spans days. A range''s sessions, repeated sessions, impressions, allowed impressions and largest session are sums and a maximum over its days. Kept by triggers on report_session_state.';

COMMENT ON COLUMN cardinal.report_session_units.finding_id IS 'The finding group (report_findings).';

COMMENT ON COLUMN cardinal.report_session_units.day IS 'The report day of the sessions.';

COMMENT ON COLUMN cardinal.report_session_units.impressions IS 'The impressions of each of these sessions.';

COMMENT ON COLUMN cardinal.report_session_units.allowed IS 'The impressions each of these sessions may log (report_session_allowed).';

COMMENT ON COLUMN cardinal.report_session_units.without_session IS 'Whether these are user-days without a session id (each counts as one session).';

COMMENT ON COLUMN cardinal.report_session_units.units IS 'How many such sessions; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_several_arm_users (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    canvas_id text NOT NULL,
    user_key text NOT NULL
);

ALTER TABLE cardinal.report_several_arm_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_several_arm_users IS 'Report state of the anomalies report (0069): the users whose non-test report_user_state rows of a campaign or canvas exposed them to two arms or more (report_row_arms) over all their days. users_in_several_arms reads these users'' rows to decide on a range. Kept by triggers on report_user_state.';

COMMENT ON COLUMN cardinal.report_several_arm_users.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_several_arm_users.campaign_id IS 'The campaign; '''' for a canvas.';

COMMENT ON COLUMN cardinal.report_several_arm_users.canvas_id IS 'The canvas; '''' for a campaign.';

COMMENT ON COLUMN cardinal.report_several_arm_users.user_key IS 'The user (events.user_key).';

CREATE TABLE cardinal.report_source_day_users (
    app_id bigint NOT NULL,
    campaign_id text NOT NULL,
    canvas_id text NOT NULL,
    kind text NOT NULL,
    day date NOT NULL,
    previous_day date NOT NULL,
    users bigint NOT NULL,
    CONSTRAINT report_source_day_users_kind_known CHECK ((kind = ANY (ARRAY['send'::text, 'control_send'::text, 'control_impression'::text, 'variant_impression'::text]))),
    CONSTRAINT report_source_day_users_order CHECK ((previous_day < day))
);

ALTER TABLE cardinal.report_source_day_users OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_source_day_users IS 'Report state of the anomalies report (0069): 0025''s day pairs per campaign or canvas and kind of day (report_source_kind_days) over its non-test report groups, for control_impressions_missing''s campaign arms. Distinct users of from..to = sum of users with day in from..to and previous_day < from. Kept by triggers on report_user_state.';

COMMENT ON COLUMN cardinal.report_source_day_users.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_source_day_users.campaign_id IS 'The campaign; '''' for a canvas.';

COMMENT ON COLUMN cardinal.report_source_day_users.canvas_id IS 'The canvas; '''' for a campaign.';

COMMENT ON COLUMN cardinal.report_source_day_users.kind IS 'send, control_send, control_impression or variant_impression (report_source_kind_days).';

COMMENT ON COLUMN cardinal.report_source_day_users.day IS 'A report day with a day of the kind.';

COMMENT ON COLUMN cardinal.report_source_day_users.previous_day IS 'The user''s previous day of the kind in the campaign or canvas, -infinity for the first.';

COMMENT ON COLUMN cardinal.report_source_day_users.users IS 'How many users; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.report_step_daily_counts (
    app_id bigint NOT NULL,
    campaign_id text,
    canvas_id text,
    canvas_step_id text,
    channel text NOT NULL,
    platform text,
    test boolean NOT NULL,
    day date NOT NULL,
    impressions bigint NOT NULL,
    clicks bigint NOT NULL,
    dismissals bigint NOT NULL,
    sends bigint NOT NULL,
    control_impressions bigint NOT NULL,
    control_sends bigint NOT NULL,
    group_days bigint NOT NULL
);

ALTER TABLE cardinal.report_step_daily_counts OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.report_step_daily_counts IS 'Report state of the anomalies report (0072): report_daily_counts summed per app, campaign or canvas step, channel, platform, test flag and report day (the report groups of campaigns and canvases), which the anomalies of 0027 read by day instead of every report group''s rows. Kept by triggers on report_daily_counts.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.app_id IS 'The app (apps.app_id).';

COMMENT ON COLUMN cardinal.report_step_daily_counts.campaign_id IS 'The campaign, NULL for a canvas step.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.canvas_id IS 'The canvas, NULL for a campaign.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.canvas_step_id IS 'The canvas step.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.channel IS 'The channel (events.channel).';

COMMENT ON COLUMN cardinal.report_step_daily_counts.platform IS 'The platform.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.test IS 'Whether these are test events.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.day IS 'The report day.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.impressions IS 'Sum of report_daily_counts.impressions.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.clicks IS 'Sum of report_daily_counts.clicks.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.dismissals IS 'Sum of report_daily_counts.dismissals.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.sends IS 'Sum of report_daily_counts.sends.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.control_impressions IS 'Sum of report_daily_counts.control_impressions.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.control_sends IS 'Sum of report_daily_counts.control_sends.';

COMMENT ON COLUMN cardinal.report_step_daily_counts.group_days IS 'How many report_daily_counts rows are summed; a row that reaches 0 is deleted in the same statement.';

CREATE TABLE cardinal.settings (
    singleton boolean DEFAULT true NOT NULL,
    retention_days integer DEFAULT 400 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT settings_retention_days_positive CHECK ((retention_days > 0)),
    CONSTRAINT settings_singleton_is_true CHECK (singleton)
);

ALTER TABLE cardinal.settings OWNER TO cardinal_owner;

COMMENT ON TABLE cardinal.settings IS 'Installation-wide settings: exactly one row (change it with UPDATE, never DELETE it).';

COMMENT ON COLUMN cardinal.settings.singleton IS 'Always true; as the primary key it limits the table to one row.';

COMMENT ON COLUMN cardinal.settings.retention_days IS 'How many days of events are kept: the ingest daemon rejects events older than this, and drop_expired_event_partitions drops monthly partitions that lie wholly before now() minus this.';

COMMENT ON COLUMN cardinal.settings.updated_at IS 'When the settings were last changed (maintained by a trigger).';

ALTER TABLE ONLY cardinal.apps
    ADD CONSTRAINT apps_name_key UNIQUE (name);

ALTER TABLE ONLY cardinal.apps
    ADD CONSTRAINT apps_pkey PRIMARY KEY (app_id);

ALTER TABLE ONLY cardinal.campaign_conversion_events
    ADD CONSTRAINT campaign_conversion_events_name_once UNIQUE (app_id, campaign_id, conversion_event);

ALTER TABLE ONLY cardinal.campaign_conversion_events
    ADD CONSTRAINT campaign_conversion_events_pkey PRIMARY KEY (app_id, campaign_id, ordinal);

ALTER TABLE ONLY cardinal.campaign_settings
    ADD CONSTRAINT campaign_settings_pkey PRIMARY KEY (app_id, campaign_id);

ALTER TABLE ONLY cardinal.erasure_salt
    ADD CONSTRAINT erasure_salt_pkey PRIMARY KEY (singleton);

ALTER TABLE ONLY cardinal.erasures
    ADD CONSTRAINT erasures_pkey PRIMARY KEY (erasure_id);

ALTER TABLE ONLY cardinal.event_storing_xids
    ADD CONSTRAINT event_storing_xids_pkey PRIMARY KEY (xid);

ALTER TABLE ONLY cardinal.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (app_id, "time", id);

ALTER TABLE ONLY cardinal.identity_links
    ADD CONSTRAINT identity_links_pkey PRIMARY KEY (app_id, device_id);

ALTER TABLE ONLY cardinal.ingest_keys
    ADD CONSTRAINT ingest_keys_key_hash_key UNIQUE (key_hash);

COMMENT ON CONSTRAINT ingest_keys_key_hash_key ON cardinal.ingest_keys IS 'The daemon authenticates a request by hashing the whole presented key and looking the hash up here.';

ALTER TABLE ONLY cardinal.ingest_keys
    ADD CONSTRAINT ingest_keys_pkey PRIMARY KEY (key_id);

ALTER TABLE ONLY cardinal.ingest_rate_limits
    ADD CONSTRAINT ingest_rate_limits_pkey PRIMARY KEY (app_id);

ALTER TABLE ONLY cardinal.rejected_events
    ADD CONSTRAINT rejected_events_pkey PRIMARY KEY (rejection_id);

ALTER TABLE ONLY cardinal.rejected_events
    ADD CONSTRAINT rejected_events_request_event_key UNIQUE (request_id, event_index);

COMMENT ON CONSTRAINT rejected_events_request_event_key ON cardinal.rejected_events IS 'One row per rejected element of a request: a batch written again (a spool replay) stores no repeat.';

ALTER TABLE ONLY cardinal.report_anomalies
    ADD CONSTRAINT report_anomalies_pkey PRIMARY KEY (run_id, "position");

ALTER TABLE ONLY cardinal.report_arm_day_users
    ADD CONSTRAINT report_arm_day_users_pkey PRIMARY KEY (app_id, campaign_id, control, variant_key, day, previous_day);

ALTER TABLE ONLY cardinal.report_arm_user_days
    ADD CONSTRAINT report_arm_user_days_pkey PRIMARY KEY (user_key, app_id, campaign_id, control, variant_key, day);

ALTER TABLE ONLY cardinal.report_campaign_cohort_days
    ADD CONSTRAINT report_campaign_cohort_days_pkey PRIMARY KEY (app_id, campaign_id, variant_key, first_day, ordinal);

ALTER TABLE ONLY cardinal.report_campaign_cohort_revenue
    ADD CONSTRAINT report_campaign_cohort_revenue_pkey PRIMARY KEY (app_id, campaign_id, variant_key, first_day, ordinal, currency);

ALTER TABLE ONLY cardinal.report_campaign_receipt_days
    ADD CONSTRAINT report_campaign_receipt_days_pkey PRIMARY KEY (app_id, campaign_id, variant_key, day);

ALTER TABLE ONLY cardinal.report_campaign_receipts
    ADD CONSTRAINT report_campaign_receipts_pkey PRIMARY KEY (app_id, campaign_id, variant_key, user_key);

ALTER TABLE ONLY cardinal.report_control_acting_users
    ADD CONSTRAINT report_control_acting_users_pkey PRIMARY KEY (app_id, campaign_id, canvas_id, user_key);

ALTER TABLE ONLY cardinal.report_control_exposure_days
    ADD CONSTRAINT report_control_exposure_days_pkey PRIMARY KEY (app_id, campaign_id, exposed_day, control, variant_key, second_arm_day);

ALTER TABLE ONLY cardinal.report_control_exposures
    ADD CONSTRAINT report_control_exposures_pkey PRIMARY KEY (app_id, campaign_id, user_key);

ALTER TABLE ONLY cardinal.report_control_goal_days
    ADD CONSTRAINT report_control_goal_days_pkey PRIMARY KEY (app_id, campaign_id, exposed_day, control, variant_key, second_arm_day, ordinal);

ALTER TABLE ONLY cardinal.report_control
    ADD CONSTRAINT report_control_pkey PRIMARY KEY (run_id, "position");

ALTER TABLE ONLY cardinal.report_conversion_state
    ADD CONSTRAINT report_conversion_state_pkey PRIMARY KEY (app_id, user_key, conversion_name, test);

ALTER TABLE ONLY cardinal.report_conversion_value_state
    ADD CONSTRAINT report_conversion_value_state_pkey PRIMARY KEY (app_id, user_key, conversion_name, test);

ALTER TABLE ONLY cardinal.report_daily_counts
    ADD CONSTRAINT report_daily_counts_pkey PRIMARY KEY (group_id, day);

ALTER TABLE ONLY cardinal.report_dismissal_day_counts
    ADD CONSTRAINT report_dismissal_day_counts_pkey PRIMARY KEY (finding_id, day);

ALTER TABLE ONLY cardinal.report_dismissal_day_users
    ADD CONSTRAINT report_dismissal_day_users_pkey PRIMARY KEY (finding_id, day, previous_day);

ALTER TABLE ONLY cardinal.report_dismissal_repeat_users
    ADD CONSTRAINT report_dismissal_repeat_users_pkey PRIMARY KEY (finding_id, user_key);

ALTER TABLE ONLY cardinal.report_dismissal_state
    ADD CONSTRAINT report_dismissal_state_pkey PRIMARY KEY (group_id, user_key, message_id, day);

ALTER TABLE ONLY cardinal.report_finding_day_users
    ADD CONSTRAINT report_finding_day_users_pkey PRIMARY KEY (finding_id, kind, day, previous_day);

ALTER TABLE ONLY cardinal.report_findings
    ADD CONSTRAINT report_findings_key UNIQUE NULLS NOT DISTINCT (app_id, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version);

ALTER TABLE ONLY cardinal.report_findings
    ADD CONSTRAINT report_findings_pkey PRIMARY KEY (finding_id);

ALTER TABLE ONLY cardinal.report_fold_watermark
    ADD CONSTRAINT report_fold_watermark_pkey PRIMARY KEY (only_row);

ALTER TABLE ONLY cardinal.report_folded_xids
    ADD CONSTRAINT report_folded_xids_pkey PRIMARY KEY (xid);

ALTER TABLE ONLY cardinal.report_groups
    ADD CONSTRAINT report_groups_key UNIQUE NULLS NOT DISTINCT (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version, app_version, test);

ALTER TABLE ONLY cardinal.report_groups
    ADD CONSTRAINT report_groups_pkey PRIMARY KEY (group_id);

ALTER TABLE ONLY cardinal.report_interaction_day_events
    ADD CONSTRAINT report_interaction_day_events_pkey PRIMARY KEY (finding_id, type, day);

ALTER TABLE ONLY cardinal.report_interaction_day_users
    ADD CONSTRAINT report_interaction_day_users_pkey PRIMARY KEY (finding_id, kind, day, previous_day);

ALTER TABLE ONLY cardinal.report_part_state
    ADD CONSTRAINT report_part_state_pkey PRIMARY KEY (group_id, user_key, part, day);

ALTER TABLE ONLY cardinal.report_push_send_state
    ADD CONSTRAINT report_push_send_state_pkey PRIMARY KEY (group_id, user_key);

ALTER TABLE ONLY cardinal.report_row_day_users
    ADD CONSTRAINT report_row_day_users_pkey PRIMARY KEY (row_id, kind, day, previous_day);

ALTER TABLE ONLY cardinal.report_row_user_days
    ADD CONSTRAINT report_row_user_days_pkey PRIMARY KEY (row_id, user_key);

ALTER TABLE ONLY cardinal.report_rows
    ADD CONSTRAINT report_rows_key UNIQUE (row_key);

ALTER TABLE ONLY cardinal.report_rows
    ADD CONSTRAINT report_rows_pkey PRIMARY KEY (row_id);

ALTER TABLE ONLY cardinal.report_runs
    ADD CONSTRAINT report_runs_pkey PRIMARY KEY (run_id);

ALTER TABLE ONLY cardinal.report_session_apart_users
    ADD CONSTRAINT report_session_apart_users_pkey PRIMARY KEY (finding_id, user_key);

ALTER TABLE ONLY cardinal.report_session_day_users
    ADD CONSTRAINT report_session_day_users_pkey PRIMARY KEY (finding_id, kind, day, previous_day);

ALTER TABLE ONLY cardinal.report_session_state
    ADD CONSTRAINT report_session_state_pkey PRIMARY KEY (group_id, user_key, session_id, day);

ALTER TABLE ONLY cardinal.report_session_units
    ADD CONSTRAINT report_session_units_pkey PRIMARY KEY (finding_id, day, impressions, allowed, without_session);

ALTER TABLE ONLY cardinal.report_several_arm_users
    ADD CONSTRAINT report_several_arm_users_pkey PRIMARY KEY (app_id, campaign_id, canvas_id, user_key);

ALTER TABLE ONLY cardinal.report_source_day_users
    ADD CONSTRAINT report_source_day_users_pkey PRIMARY KEY (app_id, campaign_id, canvas_id, kind, day, previous_day);

ALTER TABLE ONLY cardinal.report_step_daily_counts
    ADD CONSTRAINT report_step_daily_counts_key UNIQUE NULLS NOT DISTINCT (app_id, campaign_id, canvas_id, canvas_step_id, channel, platform, test, day);

ALTER TABLE ONLY cardinal.report_unique_impressions
    ADD CONSTRAINT report_unique_impressions_pkey PRIMARY KEY (run_id, "position");

ALTER TABLE ONLY cardinal.report_user_state
    ADD CONSTRAINT report_user_state_pkey PRIMARY KEY (group_id, user_key);

ALTER TABLE ONLY cardinal.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (singleton);

CREATE INDEX events_campaign_idx ON ONLY cardinal.events USING btree (app_id, campaign_id, type, "time") INCLUDE (user_key, variant_id, channel, control, test, canvas_id, canvas_step_id) WHERE (campaign_id IS NOT NULL);

COMMENT ON INDEX cardinal.events_campaign_idx IS 'Per-campaign reports: app × campaign × type over a time range, covering user_key, variant, channel, control, test and the (always null) canvas columns the reports group by, for index-only scans.';

CREATE INDEX events_conversion_idx ON ONLY cardinal.events USING btree (app_id, user_key, conversion_name, "time") WHERE (type = 'conversion'::text);

COMMENT ON INDEX cardinal.events_conversion_idx IS 'Conversion lookup by app, user_key, conversion name and time (control report); conversions only.';

CREATE INDEX events_device_idx ON ONLY cardinal.events USING btree (app_id, device_id) WHERE (device_id IS NOT NULL);

COMMENT ON INDEX cardinal.events_device_idx IS 'Erasure: one device''s events of an app, anonymous or not, one index probe per partition (0022).';

COMMENT ON INDEX cardinal.events_pkey IS 'Idempotency key (ON CONFLICT DO NOTHING) and the index for one app''s events over a time range.';

CREATE INDEX events_stored_xid ON ONLY cardinal.events USING brin (stored_xid) WITH (pages_per_range='32', autosummarize='on');

COMMENT ON INDEX cardinal.events_stored_xid IS 'Finds the events stored since the last report-state fold (report_unfolded_events).';

CREATE INDEX events_user_key_idx ON ONLY cardinal.events USING btree (app_id, user_key);

COMMENT ON INDEX cardinal.events_user_key_idx IS 'Erasure: one user''s events of an app (user_key = user_id, or device: || device_id when anonymous), one index probe per partition (0022).';

CREATE INDEX identity_links_user_idx ON cardinal.identity_links USING btree (app_id, user_id);

COMMENT ON INDEX cardinal.identity_links_user_idx IS 'The devices linked to one user (re-keying, erasure).';

CREATE INDEX rejected_events_app_received_idx ON cardinal.rejected_events USING btree (app_id, received_at);

COMMENT ON INDEX cardinal.rejected_events_app_received_idx IS 'Recent rejections of one app, newest first.';

CREATE INDEX rejected_events_received_brin ON cardinal.rejected_events USING brin (received_at);

COMMENT ON INDEX cardinal.rejected_events_received_brin IS 'Retention delete of rejected events by received_at (delete_expired_rejected_events).';

CREATE INDEX report_arm_day_users_emptied_idx ON cardinal.report_arm_day_users USING btree (app_id) WHERE (users = 0);

COMMENT ON INDEX cardinal.report_arm_day_users_emptied_idx IS 'The rows the last change brought to zero users, which the counting trigger deletes (0055).';

CREATE INDEX report_arm_user_days_emptied_idx ON cardinal.report_arm_user_days USING btree (user_key) WHERE (groups = 0);

COMMENT ON INDEX cardinal.report_arm_user_days_emptied_idx IS 'The rows the last change brought to zero groups, which the counting trigger deletes (0055).';

CREATE INDEX report_campaign_receipts_user_idx ON cardinal.report_campaign_receipts USING btree (app_id, user_key);

COMMENT ON INDEX cardinal.report_campaign_receipts_user_idx IS 'The rows of the users that pending events touch, whatever their campaign (report_pending_campaign_receipts).';

CREATE INDEX report_control_exposure_days_emptied_idx ON cardinal.report_control_exposure_days USING btree (app_id) WHERE (users = 0);

COMMENT ON INDEX cardinal.report_control_exposure_days_emptied_idx IS 'The rows the last change brought to zero users, which the counting trigger deletes (0046).';

CREATE INDEX report_control_exposures_range_idx ON cardinal.report_control_exposures USING btree (app_id, campaign_id, exposed_at);

COMMENT ON INDEX cardinal.report_control_exposures_range_idx IS 'A report''s users: one campaign''s (or the app''s) rows first exposed in the range.';

CREATE INDEX report_control_exposures_user_idx ON cardinal.report_control_exposures USING btree (app_id, user_key);

COMMENT ON INDEX cardinal.report_control_exposures_user_idx IS 'The rows of the users that pending events touch, whatever their campaign (report_pending_control_exposures).';

CREATE INDEX report_control_goal_days_emptied_idx ON cardinal.report_control_goal_days USING btree (app_id) WHERE (converters = 0);

COMMENT ON INDEX cardinal.report_control_goal_days_emptied_idx IS 'The rows the last change brought to zero converters, which the counting trigger deletes (0049).';

CREATE INDEX report_dismissal_day_counts_emptied_idx ON cardinal.report_dismissal_day_counts USING btree (finding_id) WHERE (dismissals = 0);

COMMENT ON INDEX cardinal.report_dismissal_day_counts_emptied_idx IS 'The rows the last change brought to zero dismissals, which the counting trigger deletes (0074).';

CREATE INDEX report_dismissal_day_users_emptied_idx ON cardinal.report_dismissal_day_users USING btree (finding_id) WHERE (users = 0);

COMMENT ON INDEX cardinal.report_dismissal_day_users_emptied_idx IS 'The rows the last change brought to zero users, which the counting trigger deletes (0074).';

CREATE INDEX report_finding_day_users_emptied_idx ON cardinal.report_finding_day_users USING btree (finding_id) WHERE (users = 0);

COMMENT ON INDEX cardinal.report_finding_day_users_emptied_idx IS 'The rows the last change brought to zero users, which the counting trigger deletes (0069).';

CREATE INDEX report_fold_queue_user_hash ON cardinal.report_fold_queue USING btree (cardinal.report_fold_user_hash(user_key));

COMMENT ON INDEX cardinal.report_fold_queue_user_hash IS 'One part of a long queue, a range of report_fold_user_hash, for a fold''s snapshot and delete (0077).';

CREATE INDEX report_groups_finding_idx ON cardinal.report_groups USING btree (finding_id);

COMMENT ON INDEX cardinal.report_groups_finding_idx IS 'The report groups of a finding group (0069).';

CREATE INDEX report_interaction_day_events_emptied_idx ON cardinal.report_interaction_day_events USING btree (finding_id) WHERE (events = 0);

COMMENT ON INDEX cardinal.report_interaction_day_events_emptied_idx IS 'The rows the last change brought to zero events, which the counting trigger deletes (0071).';

CREATE INDEX report_interaction_day_users_emptied_idx ON cardinal.report_interaction_day_users USING btree (finding_id) WHERE (users = 0);

COMMENT ON INDEX cardinal.report_interaction_day_users_emptied_idx IS 'The rows the last change brought to zero users, which the counting trigger deletes (0071).';

CREATE INDEX report_session_day_users_emptied_idx ON cardinal.report_session_day_users USING btree (finding_id) WHERE (users = 0);

COMMENT ON INDEX cardinal.report_session_day_users_emptied_idx IS 'The rows the last change brought to zero users, which the counting trigger deletes (0072).';

CREATE INDEX report_session_units_emptied_idx ON cardinal.report_session_units USING btree (finding_id) WHERE (units = 0);

COMMENT ON INDEX cardinal.report_session_units_emptied_idx IS 'The rows the last change brought to zero sessions, which the counting trigger deletes (0072).';

CREATE INDEX report_source_day_users_emptied_idx ON cardinal.report_source_day_users USING btree (app_id) WHERE (users = 0);

COMMENT ON INDEX cardinal.report_source_day_users_emptied_idx IS 'The rows the last change brought to zero users, which the counting trigger deletes (0069).';

CREATE INDEX report_step_daily_counts_emptied_idx ON cardinal.report_step_daily_counts USING btree (app_id) WHERE (group_days = 0);

COMMENT ON INDEX cardinal.report_step_daily_counts_emptied_idx IS 'The rows the last change brought to zero report_daily_counts rows, which the trigger deletes (0072).';

CREATE INDEX report_user_state_user_key_idx ON cardinal.report_user_state USING btree (user_key);

COMMENT ON INDEX cardinal.report_user_state_user_key_idx IS 'A user''s state rows of every group, for the finding-group counts'' trigger and the users of several arms (0069).';

ALTER TABLE ONLY cardinal.campaign_conversion_events
    ADD CONSTRAINT campaign_conversion_events_settings_fkey FOREIGN KEY (app_id, campaign_id) REFERENCES cardinal.campaign_settings(app_id, campaign_id) ON DELETE CASCADE;

ALTER TABLE ONLY cardinal.campaign_settings
    ADD CONSTRAINT campaign_settings_app_id_fkey FOREIGN KEY (app_id) REFERENCES cardinal.apps(app_id) ON DELETE CASCADE;

ALTER TABLE ONLY cardinal.ingest_keys
    ADD CONSTRAINT ingest_keys_app_id_fkey FOREIGN KEY (app_id) REFERENCES cardinal.apps(app_id) ON DELETE CASCADE;

ALTER TABLE ONLY cardinal.ingest_rate_limits
    ADD CONSTRAINT ingest_rate_limits_app_id_fkey FOREIGN KEY (app_id) REFERENCES cardinal.apps(app_id) ON DELETE CASCADE;

ALTER TABLE ONLY cardinal.report_anomalies
    ADD CONSTRAINT report_anomalies_run_id_fkey FOREIGN KEY (run_id) REFERENCES cardinal.report_runs(run_id) ON DELETE CASCADE;

ALTER TABLE ONLY cardinal.report_control
    ADD CONSTRAINT report_control_run_id_fkey FOREIGN KEY (run_id) REFERENCES cardinal.report_runs(run_id) ON DELETE CASCADE;

ALTER TABLE ONLY cardinal.report_groups
    ADD CONSTRAINT report_groups_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES cardinal.report_findings(finding_id);

ALTER TABLE ONLY cardinal.report_unique_impressions
    ADD CONSTRAINT report_unique_impressions_run_id_fkey FOREIGN KEY (run_id) REFERENCES cardinal.report_runs(run_id) ON DELETE CASCADE;

GRANT SELECT ON TABLE cardinal.report_row_day_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.erasures TO cardinal_reader;

GRANT INSERT ON TABLE cardinal.events TO cardinal_ingest;
GRANT SELECT ON TABLE cardinal.events TO cardinal_reader;

GRANT SELECT(app_id) ON TABLE cardinal.events TO cardinal_ingest;

GRANT SELECT(id) ON TABLE cardinal.events TO cardinal_ingest;

GRANT SELECT("time") ON TABLE cardinal.events TO cardinal_ingest;

GRANT SELECT ON TABLE cardinal.report_groups TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_push_send_state TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.apps TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.campaign_settings TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_user_state TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.campaign_conversion_events TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_daily_counts TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.event_storing_xids TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.identity_links TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.ingest_keys TO cardinal_ingest;

GRANT SELECT(key_id) ON TABLE cardinal.ingest_keys TO cardinal_reader;

GRANT SELECT(app_id) ON TABLE cardinal.ingest_keys TO cardinal_reader;

GRANT SELECT(created_at) ON TABLE cardinal.ingest_keys TO cardinal_reader;

GRANT SELECT(revoked_at) ON TABLE cardinal.ingest_keys TO cardinal_reader;

GRANT SELECT(description) ON TABLE cardinal.ingest_keys TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.ingest_rate_limits TO cardinal_ingest;
GRANT SELECT ON TABLE cardinal.ingest_rate_limits TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_runs TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_anomalies TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_control TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_unique_impressions TO cardinal_reader;

GRANT INSERT ON TABLE cardinal.rejected_events TO cardinal_ingest;
GRANT SELECT ON TABLE cardinal.rejected_events TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_arm_day_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_arm_user_days TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_campaign_cohort_days TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_campaign_cohort_revenue TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_campaign_receipt_days TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_campaign_receipts TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_control_acting_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_control_exposure_days TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_control_exposures TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_control_goal_days TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_conversion_state TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_conversion_value_state TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_dismissal_day_counts TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_dismissal_state TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_dismissal_day_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_dismissal_repeat_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_finding_day_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_findings TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_fold_queue TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_fold_watermark TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_folded_xids TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_interaction_day_events TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_interaction_day_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_part_state TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_rows TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_row_user_days TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_session_apart_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_session_state TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_session_day_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_session_units TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_several_arm_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_source_day_users TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.report_step_daily_counts TO cardinal_reader;

GRANT SELECT ON TABLE cardinal.settings TO cardinal_ingest;
GRANT SELECT ON TABLE cardinal.settings TO cardinal_reader;


-- The rows that exist from the start.

-- The one settings row (retention_days and the other defaults).
insert into cardinal.settings default values;

-- Nothing stored so far has a stored_xid: the watermark starts at the current transaction.
insert into cardinal.report_fold_watermark (folded_below, next_xid)
values ((pg_current_xact_id()::text)::bigint, (pg_current_xact_id()::text)::bigint);

-- The installation's erasure salt, made once: 32 bytes from two random (version 4) UUIDs, gen_random_uuid being
-- PostgreSQL's own strong random source (no pgcrypto needed).
insert into cardinal.erasure_salt (salt)
values (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
