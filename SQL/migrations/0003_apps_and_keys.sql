-- 0003_apps_and_keys.sql — apps and their ingest keys.
--
-- Both tables are small, written by the `cardinal` command (as cardinal_owner) and read on every request
-- by the ingest daemon, so they carry foreign keys and strict checks: they cost nothing here.

-- A time zone check that accepts only IANA names (pg_timezone_names), and rejects what `at time zone`
-- would also accept: POSIX specs such as 'UTC+3' (which POSIX reads as three hours WEST of UTC) and bare
-- abbreviations such as 'CEST' (a fixed offset that ignores daylight saving). Both silently shift report
-- days. Names are case-sensitive here so that each zone has one spelling in the data.
create function cardinal.is_valid_time_zone(zone text)
    returns boolean
    language sql
    stable
    strict
    set search_path = pg_catalog, pg_temp
as $function$
    select exists (select from pg_catalog.pg_timezone_names where name = zone);
$function$;

alter function cardinal.is_valid_time_zone(text) owner to cardinal_owner;

comment on function cardinal.is_valid_time_zone(text) is
    'True when zone is an IANA time zone name known to this server (pg_timezone_names), e.g. '
    '''Europe/Madrid'' or ''UTC''; false for POSIX specs like ''UTC+3'' and for abbreviations. '
    'Used by the CHECK constraints of report_time_zone columns. NULL for NULL.';


create table cardinal.apps (
    app_id           bigint      generated always as identity,
    name             text        not null,
    report_time_zone text        not null default 'UTC',
    created_at       timestamptz not null default now(),

    constraint apps_pkey primary key (app_id),
    constraint apps_name_key unique (name),
    constraint apps_name_trimmed check (name = btrim(name) and char_length(name) between 1 and 255),
    constraint apps_report_time_zone_valid check (cardinal.is_valid_time_zone(report_time_zone))
);

alter table cardinal.apps owner to cardinal_owner;

comment on table cardinal.apps is
    'One row per app (workspace) that sends events. Created with the cardinal command; every event, '
    'ingest key and campaign setting belongs to exactly one app.';
comment on column cardinal.apps.app_id is
    'Identifier of the app, assigned by the database; stored in every event of the app.';
comment on column cardinal.apps.name is
    'Unique human name of the app, as shown in listings and reports (1–255 characters, no surrounding '
    'spaces).';
comment on column cardinal.apps.report_time_zone is
    'IANA time zone whose calendar days the reports of this app use (unique daily impressions, per-day '
    'rows); a campaign can override it in campaign_settings.';
comment on column cardinal.apps.created_at is
    'When the app was created.';


create table cardinal.ingest_keys (
    key_id      text        not null,
    app_id      bigint      not null,
    key_hash    bytea       not null,
    created_at  timestamptz not null default now(),
    revoked_at  timestamptz,
    description text,

    constraint ingest_keys_pkey primary key (key_id),
    -- The daemon authenticates by hashing the presented secret and looking the hash up here.
    constraint ingest_keys_key_hash_key unique (key_hash),
    constraint ingest_keys_app_id_fkey foreign key (app_id)
        references cardinal.apps (app_id) on delete cascade,
    -- key_id is embedded in the secret 'cardinal_<key_id>_<secret>', so it must not contain '_' beyond
    -- its prefix, and it is short enough to read out in a listing.
    constraint ingest_keys_key_id_format check (key_id ~ '^ck_[0-9A-Za-z]{12}$'),
    constraint ingest_keys_key_hash_is_sha256 check (octet_length(key_hash) = 32),
    constraint ingest_keys_revoked_after_created check (revoked_at is null or revoked_at >= created_at)
);

alter table cardinal.ingest_keys owner to cardinal_owner;

comment on table cardinal.ingest_keys is
    'Ingest keys: the bearer credentials that apps send to POST /v1/events. A key is shown once, when '
    'created, as ''cardinal_<key_id>_<secret>''; only a SHA-256 hash of its secret is stored, so a lost '
    'key cannot be recovered, only revoked and replaced.';
comment on column cardinal.ingest_keys.key_id is
    'Public identifier of the key: ''ck_'' and 12 letters or digits. Shown in listings and logs and part '
    'of the key itself, so that a leaked key can be traced to this row; not a secret.';
comment on column cardinal.ingest_keys.app_id is
    'The app whose events this key may send; events sent with it are stored under this app.';
comment on column cardinal.ingest_keys.key_hash is
    'SHA-256 (32 bytes) of the key''s secret; the secret itself is never stored. Unique, so that the '
    'daemon can authenticate a request by one index lookup. Not readable by cardinal_reader.';
comment on column cardinal.ingest_keys.created_at is
    'When the key was created.';
comment on column cardinal.ingest_keys.revoked_at is
    'When the key was revoked; NULL while it is valid. A revoked key is answered with 401.';
comment on column cardinal.ingest_keys.description is
    'Free text for the humans who manage keys, e.g. which build or team uses the key.';
