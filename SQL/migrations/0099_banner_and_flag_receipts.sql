-- Receipts of banners and feature flags are their impressions (issue 44): no SDK logs a send of either, so a
-- receipt by send left their campaigns with no recipients and no conversions. report_receipt_type (a code file)
-- now names the receipt per channel, and every report reads it. The recipients of unique_impressions are read
-- from state that keeps impressions and sends apart, so they follow at once; report_campaign_receipts holds
-- each user's first receipt and receipt days as folded, so the campaigns with banner or feature-flag events are
-- queued again (requeue_report_state), and the next folds count them by the new rule. Reports stay exact
-- meanwhile: they count the queued events. A fresh install holds no events and skips it.

do $migration$
declare
    requeued record;
begin
    for requeued in
        select distinct e.app_id, e.campaign_id
        from cardinal.events as e
        where e.channel in ('banner', 'feature_flag')
          and e.campaign_id is not null
        order by 1, 2
    loop
        perform cardinal.requeue_report_state(requeued.app_id, requeued.campaign_id);
    end loop;
end
$migration$;
