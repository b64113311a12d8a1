-- 0020_ingest_least_privilege_and_key_format.sql — the ingest role reads only what cardinald reads, and the
-- comments of ingest_keys describe the keys the code issues.
--
-- 1. Least privilege. 0008 let cardinal_ingest read apps and campaign_settings, which cardinald never reads.
--    What the daemon's SQL reads, as the ingest role (Sources/CardinalIngest, Sources/CardinalStore):
--      * ingest_keys: the key lookup (IngestKeyStore.resolve, by key_hash);
--      * settings: retention_days, read at start and re-read every minute (RetentionSetting);
--      * events and rejected_events: the writer (INSERT, and SELECT of the key columns for RETURNING);
--      * ensure_event_partitions() and fold_report_state(): SECURITY DEFINER, run as cardinal_owner, as do
--        the report-state triggers of 0015 (queue_for_report_state and the time-zone requeue triggers) and
--        the foreign-key checks of events.app_id.
--    So SELECT on apps and campaign_settings is revoked; SQL/checks/privilege_drift.sql keeps it so.
--
-- 2. Key format. 0003 described a key as 'cardinal_<key_id>_<secret>' with a hash of the secret alone; the
--    code (IngestKeyToken) issues 'cdl_<key_id>_<secret>' and stores the SHA-256 of the whole token,
--    computed by the client (IngestKeyStore.hash(of:)) so that the token is never sent to the server.

revoke select on cardinal.apps, cardinal.campaign_settings from cardinal_ingest;


comment on table cardinal.ingest_keys is
    'Ingest keys: the bearer credentials that apps send to POST /v1/events. A key is shown once, when '
    'created, as ''cdl_<key_id>_<secret>'' (the secret: 32 letters or digits); only the SHA-256 of the whole '
    'key is stored, so a lost key cannot be recovered, only revoked and replaced.';
comment on column cardinal.ingest_keys.key_id is
    'Public identifier of the key: ''ck_'' and 12 letters or digits. Shown in listings and logs and part '
    'of the key itself (''cdl_<key_id>_<secret>''), so that a leaked key can be traced to this row; not a '
    'secret.';
comment on column cardinal.ingest_keys.key_hash is
    'SHA-256 (32 bytes) of the whole key, ''cdl_<key_id>_<secret>'' in UTF-8; the key itself is never '
    'stored. Computed by the client (cardinal, cardinald), so that the key never reaches the server, whose '
    'statement log would show it. Unique, so that the daemon authenticates a request by one index lookup. '
    'Not readable by cardinal_reader.';
comment on constraint ingest_keys_key_id_format on cardinal.ingest_keys is
    'key_id is embedded in the key ''cdl_<key_id>_<secret>'', so it holds no ''_'' beyond its prefix, and '
    'it is short enough to read out in a listing.';
comment on constraint ingest_keys_key_hash_key on cardinal.ingest_keys is
    'The daemon authenticates a request by hashing the whole presented key and looking the hash up here.';
