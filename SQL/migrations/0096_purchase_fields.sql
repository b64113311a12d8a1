-- Purchases as the SDK logs them (issue 44): logPurchase(productId, currency, price, quantity) and the e-commerce
-- events' order id. A conversion may carry product_id, price and quantity (its value is then price × quantity,
-- computed at ingest, so revenue needs no change) and order_id. The columns are NULL on every stored event.
--
-- The CHECKs read only the new columns, which are NULL everywhere, but PostgreSQL still scans every partition
-- once to validate them, under the ACCESS EXCLUSIVE lock the ADD COLUMN takes: ingest waits for that scan.

alter table cardinal.events
    add column product_id text,
    add column price numeric,
    add column quantity integer,
    add column order_id text,
    add constraint events_product_id_length check (char_length(product_id) between 1 and 255),
    add constraint events_order_id_length check (char_length(order_id) between 1 and 255),
    add constraint events_price_finite
        check (price <> all (array['NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric])),
    add constraint events_quantity_positive check (quantity >= 1),
    add constraint events_purchase_only_on_conversion check (
        type = 'conversion'
        or (product_id is null and price is null and quantity is null and order_id is null)
    ),
    add constraint events_price_times_quantity_is_value check (
        (price is null and quantity is null)
        or (price is not null and quantity is not null and value is not null and value = price * quantity)
    );

comment on column cardinal.events.product_id is
    'The product a purchase is of (the SDK''s productId), 1–255 characters; only on conversions.';
comment on column cardinal.events.price is
    'Unit price of a purchase, exact as sent; value is price × quantity. Only on conversions.';
comment on column cardinal.events.quantity is
    'Units bought, at least 1 (1 when a price came without one); set exactly when price is. Only on conversions.';
comment on column cardinal.events.order_id is
    'The order a conversion belongs to (an e-commerce event''s order_id), 1–255 characters; only on conversions.';
