-- 0024_rejections_stored_once.sql — a rejected event is stored once, even when its batch is written twice
-- (issue 9: a spooled batch replayed after a crash that came between its commit and the deletion of its
-- spool segment).
--
-- Events are idempotent by their primary key (app, time, id); rejections had no such key, so a replay stored
-- them again. Every rejection cardinald writes carries the id of the request it came with (unique per
-- daemon run: a random prefix and a counter) and its position in that request, which together name it; the
-- writer now inserts rejections with ON CONFLICT DO NOTHING on them. Rows written without a request id
-- (none of cardinald's) never conflict: NULLs are distinct.

-- Repeats stored before this migration: keep the first of each.
delete from cardinal.rejected_events as r
using cardinal.rejected_events as first
where r.request_id = first.request_id
  and r.event_index = first.event_index
  and r.rejection_id > first.rejection_id;

alter table cardinal.rejected_events
    add constraint rejected_events_request_event_key unique (request_id, event_index);

comment on constraint rejected_events_request_event_key on cardinal.rejected_events is
    'One row per rejected element of a request: a batch written again (a spool replay) stores no repeat.';
