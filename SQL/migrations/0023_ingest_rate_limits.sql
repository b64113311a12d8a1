-- 0023_ingest_rate_limits.sql — how fast each app may send to cardinald, set per app.
--
-- An ingest key ships inside the app, so anyone can read it and send with it. cardinald keeps a token
-- bucket per app for events per second and one for requests per second; a request beyond either is
-- answered 429 with Retry-After and nothing of it is stored. The daemon's --rate-limit-events and
-- --rate-limit-requests give the rates of every app; a row here overrides them for one app (a NULL column
-- keeps the daemon's rate for that bucket, 0 lifts the limit). The daemon reads the row with the key
-- lookup (IngestKeyStore.lookup), so a change takes effect within --key-cache-ttl.
--
-- A table of its own rather than columns of apps: cardinal_ingest may not read apps (0020), and what it
-- reads here is only what it enforces. Each daemon keeps its own buckets: with N daemons behind a load
-- balancer an app may send up to N times the rate.

create table cardinal.ingest_rate_limits (
    app_id              bigint      not null,
    events_per_second   integer,
    requests_per_second integer,
    updated_at          timestamptz not null default now(),

    constraint ingest_rate_limits_pkey primary key (app_id),
    constraint ingest_rate_limits_app_id_fkey foreign key (app_id)
        references cardinal.apps (app_id) on delete cascade,
    constraint ingest_rate_limits_events_not_negative check (events_per_second >= 0),
    constraint ingest_rate_limits_requests_not_negative check (requests_per_second >= 0)
);

alter table cardinal.ingest_rate_limits owner to cardinal_owner;

grant select on cardinal.ingest_rate_limits to cardinal_ingest, cardinal_reader;

comment on table cardinal.ingest_rate_limits is
    'Per-app overrides of the rate limits cardinald enforces on POST /v1/events (a token bucket per app '
    'and daemon; 429 with Retry-After beyond). An app without a row gets the daemon''s --rate-limit-events '
    'and --rate-limit-requests. Set with ''cardinal apps limits''.';
comment on column cardinal.ingest_rate_limits.app_id is
    'The app the limits apply to, across all of its ingest keys.';
comment on column cardinal.ingest_rate_limits.events_per_second is
    'Events per second the app may send to one daemon, sustained; a burst of up to one second''s worth '
    'passes at once. NULL: the daemon''s --rate-limit-events; 0: no limit.';
comment on column cardinal.ingest_rate_limits.requests_per_second is
    'Requests per second the app may send to one daemon, sustained, with a burst of one second''s worth. '
    'NULL: the daemon''s --rate-limit-requests; 0: no limit.';
comment on column cardinal.ingest_rate_limits.updated_at is
    'When the row was last set; daemons pick a change up within their key cache''s time to live.';
comment on constraint ingest_rate_limits_events_not_negative on cardinal.ingest_rate_limits is
    'A rate is a count per second; 0 means no limit, NULL the daemon''s default.';
comment on constraint ingest_rate_limits_requests_not_negative on cardinal.ingest_rate_limits is
    'A rate is a count per second; 0 means no limit, NULL the daemon''s default.';
