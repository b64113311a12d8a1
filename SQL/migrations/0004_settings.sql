-- 0004_settings.sql — installation settings and per-campaign settings.

-- updated_at must stay true however a row is changed (the `cardinal` command, or an operator in psql),
-- so a trigger sets it instead of trusting every writer to remember.
create function cardinal.touch_updated_at()
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


-- A single typed row rather than a key/value table: each setting gets its own type, CHECK constraint and
-- COMMENT (so \d+ documents it), readers need no parsing, and adding a setting later is an ALTER TABLE
-- ADD COLUMN with a default, which is cheap. The boolean primary key that must be true allows one row.
create table cardinal.settings (
    singleton      boolean     not null default true,
    retention_days integer     not null default 400,
    updated_at     timestamptz not null default now(),

    constraint settings_pkey primary key (singleton),
    constraint settings_singleton_is_true check (singleton),
    constraint settings_retention_days_positive check (retention_days > 0)
);

alter table cardinal.settings owner to cardinal_owner;

insert into cardinal.settings default values;

create trigger settings_touch_updated_at
    before update on cardinal.settings
    for each row execute function cardinal.touch_updated_at();

comment on table cardinal.settings is
    'Installation-wide settings: exactly one row (change it with UPDATE, never DELETE it).';
comment on column cardinal.settings.singleton is
    'Always true; as the primary key it limits the table to one row.';
comment on column cardinal.settings.retention_days is
    'How many days of events are kept: the ingest daemon rejects events older than this, and '
    'drop_expired_event_partitions drops monthly partitions that lie wholly before now() minus this.';
comment on column cardinal.settings.updated_at is
    'When the settings were last changed (maintained by a trigger).';


create table cardinal.campaign_settings (
    app_id            bigint      not null,
    campaign_id       text        not null,
    conversion_event  text,
    conversion_window interval    not null default interval '3 days',
    expected_split    jsonb,
    report_time_zone  text,
    updated_at        timestamptz not null default now(),

    constraint campaign_settings_pkey primary key (app_id, campaign_id),
    constraint campaign_settings_app_id_fkey foreign key (app_id)
        references cardinal.apps (app_id) on delete cascade,
    constraint campaign_settings_campaign_id_length check (char_length(campaign_id) between 1 and 255),
    -- The same rule as a conversion event's name at ingest, so that a setting can name any event.
    constraint campaign_settings_conversion_event_name check (
        char_length(conversion_event) between 1 and 255 and conversion_event !~ '^\$'
    ),
    -- Months are excluded because '1 month' compares equal to '30 days' but adds a calendar month
    -- (up to 31 days) to a timestamp.
    constraint campaign_settings_conversion_window_range check (
        conversion_window between interval '1 second' and interval '30 days'
        and extract(year from conversion_window) = 0
        and extract(month from conversion_window) = 0
    ),
    -- An object of 1 to 9 arms (up to 8 variants and the control) with positive numeric weights; the SRM
    -- check divides by the weights.
    constraint campaign_settings_expected_split_shape check (
        jsonb_typeof(expected_split) = 'object'
        and jsonb_array_length(jsonb_path_query_array(expected_split, '$.*')) between 1 and 9
        and not jsonb_path_exists(expected_split, '$.* ? (@.type() != "number" || @ <= 0)')
    ),
    constraint campaign_settings_report_time_zone_valid check (
        report_time_zone is null or cardinal.is_valid_time_zone(report_time_zone)
    )
);

alter table cardinal.campaign_settings owner to cardinal_owner;

create trigger campaign_settings_touch_updated_at
    before update on cardinal.campaign_settings
    for each row execute function cardinal.touch_updated_at();

comment on table cardinal.campaign_settings is
    'Per-campaign report settings, edited with the cardinal command or in psql. A campaign without a '
    'row uses the defaults of the columns.';
comment on column cardinal.campaign_settings.app_id is
    'The app the campaign belongs to.';
comment on column cardinal.campaign_settings.campaign_id is
    'The campaign, as sent in the campaign_id field of its events.';
comment on column cardinal.campaign_settings.conversion_event is
    'Name of the primary conversion event (the name field of conversion events) that the control report '
    'counts; NULL = no conversion goal set, so the control report has nothing to compare.';
comment on column cardinal.campaign_settings.conversion_window is
    'How long after a user''s first (control) impression — after the send for push — a conversion still '
    'counts. Between 1 second and 30 days, in days/hours/minutes/seconds (no months).';
comment on column cardinal.campaign_settings.expected_split is
    'Expected share of users per arm for the sample ratio mismatch check: a JSON object from arm to '
    'positive weight, e.g. {"control": 1, "v1": 1}. The key "control" is the control group, the others '
    'are variant_id values. Weights are relative. NULL = no SRM check.';
comment on column cardinal.campaign_settings.report_time_zone is
    'IANA time zone of the report day for this campaign; NULL = the app''s report_time_zone.';
comment on column cardinal.campaign_settings.updated_at is
    'When the row was last changed (maintained by a trigger).';
