-- An order counted once (issue 44, purchases and revenue): the SDKs can log one purchase twice (a push callback
-- that logs it again, an e-commerce event retried by the app under a new event id), and revenue summed it twice.
-- Ingest now records, per app, conversion name, order_id and product_id, the first stored conversion of the
-- order (conversion_orders); a later one of the same order is a repeat (repeated_order_conversions), which stays
-- in events but whose value no revenue counts, and which the anomalies report shows as repeated_conversions.
--
-- The product is part of the order's key because a purchase is logged per product (logPurchase(productId, …)):
-- three products of one order are three conversions with the same order_id, and all three count.
--
-- "First" is first stored, not earliest by event time: a repeat that arrives after its order was folded then
-- never takes a folded value out of the report state, and a report of the state still equals its reference,
-- which reads the same tables. The rows are written by a row trigger of events (a code file), in the storing
-- transaction, so a report sees an event and its repeat row together or neither. Test events are orders of
-- their own (test is part of the key), so that a test purchase never hides a real one's revenue.
--
-- The trigger comes with the code files, which `cardinal migrate` applies right after this migration: a
-- conversion with an order stored in between (while the code files are applied, seconds) is in neither table,
-- so its order's next conversion would count too. Stop ingest for this upgrade, or accept that.

create table cardinal.conversion_orders (
    app_id          bigint      not null,
    conversion_name text        not null,
    order_id        text        not null,
    product_id      text        not null,
    time            timestamptz not null,
    id              uuid        not null,
    user_key        text        not null,
    platform        text,
    sdk_version     text,
    app_version     text,
    test            boolean     not null,
    primary key (app_id, conversion_name, order_id, product_id, test)
);
alter table cardinal.conversion_orders owner to cardinal_owner;
grant select on cardinal.conversion_orders to cardinal_reader;
create index conversion_orders_user_key_idx on cardinal.conversion_orders (app_id, user_key);
comment on index cardinal.conversion_orders_user_key_idx is 'Erasure: the orders an identity''s events began.';
create index conversion_orders_time_idx on cardinal.conversion_orders (app_id, time);
comment on index cardinal.conversion_orders_time_idx is
    'The repeated_conversions finding (its report days) and retention (a dropped partition''s range).';
comment on table cardinal.conversion_orders is
    'The first stored conversion of each order: per app, conversion name, order_id, product_id and test, the event '
    'whose value revenue counts. Written by ingest (events_record_conversion_order); rows go with their event '
    '(erasure, retention).';
comment on column cardinal.conversion_orders.app_id is 'The app (apps.app_id).';
comment on column cardinal.conversion_orders.conversion_name is 'The conversion''s name (events.conversion_name).';
comment on column cardinal.conversion_orders.order_id is 'The order (events.order_id).';
comment on column cardinal.conversion_orders.product_id is
    'The product of a per-product purchase (events.product_id); '''' when the conversion names none.';
comment on column cardinal.conversion_orders.time is 'The first stored conversion''s time (events.time).';
comment on column cardinal.conversion_orders.id is 'The first stored conversion''s id (events.id).';
comment on column cardinal.conversion_orders.user_key is 'Who logged it (events.user_key), for erasure.';
comment on column cardinal.conversion_orders.platform is 'The SDK platform that logged it.';
comment on column cardinal.conversion_orders.sdk_version is 'The SDK version that logged it.';
comment on column cardinal.conversion_orders.app_version is 'The app version that logged it.';
comment on column cardinal.conversion_orders.test is 'Whether it is a test event (events.test).';

create table cardinal.repeated_order_conversions (
    app_id          bigint      not null,
    time            timestamptz not null,
    id              uuid        not null,
    conversion_name text        not null,
    order_id        text        not null,
    product_id      text        not null,
    user_key        text        not null,
    platform        text,
    sdk_version     text,
    app_version     text,
    test            boolean     not null,
    primary key (app_id, time, id)
);
alter table cardinal.repeated_order_conversions owner to cardinal_owner;
grant select on cardinal.repeated_order_conversions to cardinal_reader;
create index repeated_order_conversions_user_key_idx on cardinal.repeated_order_conversions (app_id, user_key);
comment on index cardinal.repeated_order_conversions_user_key_idx is 'Erasure: an identity''s repeats.';
create index repeated_order_conversions_order_idx
    on cardinal.repeated_order_conversions (app_id, conversion_name, order_id, product_id, test);
comment on index cardinal.repeated_order_conversions_order_idx is
    'The repeats of one order, whose next takes its place when its first is erased or expires.';
comment on table cardinal.repeated_order_conversions is
    'Stored conversions that repeat an order stored before (conversion_orders): revenue leaves their value out, '
    'and the anomalies report counts them as repeated_conversions. The key is the event''s (events: app_id, '
    'time, id). Written by ingest (events_record_conversion_order); rows go with their event.';
comment on column cardinal.repeated_order_conversions.app_id is 'The app (apps.app_id).';
comment on column cardinal.repeated_order_conversions.time is 'The repeat''s time (events.time).';
comment on column cardinal.repeated_order_conversions.id is 'The repeat''s id (events.id).';
comment on column cardinal.repeated_order_conversions.conversion_name is 'The conversion''s name.';
comment on column cardinal.repeated_order_conversions.order_id is 'The order it repeats.';
comment on column cardinal.repeated_order_conversions.product_id is
    'The product of the order it repeats (events.product_id); '''' when the conversion names none.';
comment on column cardinal.repeated_order_conversions.user_key is 'Who logged it (events.user_key).';
comment on column cardinal.repeated_order_conversions.platform is 'The SDK platform that logged it.';
comment on column cardinal.repeated_order_conversions.sdk_version is 'The SDK version that logged it.';
comment on column cardinal.repeated_order_conversions.app_version is 'The app version that logged it.';
comment on column cardinal.repeated_order_conversions.test is 'Whether it is a test event (events.test).';

-- The conversions with an order stored before this migration, first by arrival (their storing transaction,
-- none before 0021's, then time and id, the order a batch inserts in).
insert into cardinal.conversion_orders
select distinct on (app_id, conversion_name, order_id, coalesce(product_id, ''), test)
       app_id, conversion_name, order_id, coalesce(product_id, ''), time, id, user_key, platform, sdk_version,
       app_version, test
from cardinal.events
where order_id is not null
order by app_id, conversion_name, order_id, coalesce(product_id, ''), test, stored_xid nulls first, time, id;

insert into cardinal.repeated_order_conversions
select e.app_id, e.time, e.id, e.conversion_name, e.order_id, coalesce(e.product_id, ''), e.user_key, e.platform,
       e.sdk_version, e.app_version, e.test
from cardinal.events as e
join cardinal.conversion_orders as o
  on o.app_id = e.app_id and o.conversion_name = e.conversion_name and o.order_id = e.order_id
 and o.product_id = coalesce(e.product_id, '') and o.test = e.test
where e.order_id is not null
  and (e.time, e.id) <> (o.time, o.id);

-- The folded state counted the repeats' values: the apps that have one are queued again, and the next folds
-- leave them out. Reports stay exact meanwhile (they count the queued events). A fresh install holds no events
-- and skips it.
do $migration$
declare
    requeued record;
begin
    for requeued in
        select distinct r.app_id
        from cardinal.repeated_order_conversions as r
        order by 1
    loop
        perform cardinal.requeue_report_state(requeued.app_id);
    end loop;
end
$migration$;

comment on column cardinal.erasures.requeued_events is
    'Remaining events of other users, which the next fold folds again to rebuild their state (queued again, or '
    'still unfolded since they were stored): of those who shared the erased device, and of those whose repeat '
    'of an order became its first (forget_deleted_conversion_orders).';
