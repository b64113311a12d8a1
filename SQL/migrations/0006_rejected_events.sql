-- 0006_rejected_events.sql — events that failed validation, kept as evidence.
--
-- Not partitioned: a healthy integration produces few rejections, and the table is read by app and recent
-- arrival, not by event time (a rejected event may have no valid time at all). Its retention is a DELETE
-- by received_at (cardinal.delete_expired_rejected_events, 0007), which the BRIN index below makes cheap.
-- If a broken SDK ever makes it large, a later migration can partition it by received_at like events.
--
-- No foreign key to apps, for the same reason as events: app_id comes from the authenticated key, and
-- this table is appended to in the same group-commit transactions as events.

create table cardinal.rejected_events (
    rejection_id bigint      generated always as identity,
    app_id       bigint      not null,
    received_at  timestamptz not null default now(),
    event_index  integer     not null,
    event_id     text,
    code         text        not null,
    message      text        not null,
    raw          text        not null,
    request_id   text,

    constraint rejected_events_pkey primary key (rejection_id),
    constraint rejected_events_event_index_non_negative check (event_index >= 0),
    constraint rejected_events_code_present check (code <> '')
);

alter table cardinal.rejected_events owner to cardinal_owner;

-- Serves "what did app A get rejected lately", the integration-debugging query.
create index rejected_events_app_received_idx
    on cardinal.rejected_events (app_id, received_at);

comment on index cardinal.rejected_events_app_received_idx is
    'Recent rejections of one app, newest first.';

-- Serves the retention DELETE over all apps by received_at. Rows arrive in received_at order, so a BRIN
-- index (a few pages, almost free to maintain) finds the old block ranges.
create index rejected_events_received_brin
    on cardinal.rejected_events using brin (received_at);

comment on index cardinal.rejected_events_received_brin is
    'Retention delete of rejected events by received_at (delete_expired_rejected_events).';

comment on table cardinal.rejected_events is
    'Events that the ingest daemon rejected, one row per event, with the reason and the event exactly as '
    'received: bad data is evidence of an integration bug, not rubbish. The error list of the API response '
    'carries the same index, id, code and message.';
comment on column cardinal.rejected_events.rejection_id is
    'Identifier of the rejection, assigned by the database in arrival order.';
comment on column cardinal.rejected_events.app_id is
    'The app of the ingest key that sent the rejected event.';
comment on column cardinal.rejected_events.received_at is
    'When the rejected event was received (start of the storing transaction).';
comment on column cardinal.rejected_events.event_index is
    '0-based position of the event in its request: the array index for JSON, the line number for NDJSON.';
comment on column cardinal.rejected_events.event_id is
    'The event''s id field as sent, when there was one; text because a rejected id need not be a UUID.';
comment on column cardinal.rejected_events.code is
    'Machine-readable reason, the same code as in the API response.';
comment on column cardinal.rejected_events.message is
    'Human-readable reason, as in the API response.';
comment on column cardinal.rejected_events.raw is
    'The event as received (its JSON text or NDJSON line), kept as text because it may not be valid JSON. '
    'Bytes that text cannot hold (NUL, invalid UTF-8) are replaced with U+FFFD by the daemon.';
comment on column cardinal.rejected_events.request_id is
    'Id of the HTTP request that carried the event, as logged by the daemon; groups one request''s rejections.';
