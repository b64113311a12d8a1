-- 0051_fold_receipts_before_values.sql — the fold keeps campaign receipts before it folds conversion values, so
-- that the pending receipts read the same conversions inside a fold as outside one (issue 8).
--
-- Design notes (why, not what):
--
-- * report_pending_campaign_receipts (0045) adds each user's pending conversions to the folded ones: their
--   times to report_conversion_state's, their values to report_conversion_value_state's. Inside a fold both
--   are read by fold_report_campaign_receipts, but the fold ran fold_report_conversion_values first, so the
--   value state already held the snapshot's values there, while the conversion state (fold_report_user_state,
--   last) did not hold their times. 0045 mended it inside the view, adding the pending values only when 0038's
--   snapshot marker said no fold was running: a rule about the fold's order written into a report view.
--
-- * The fold now runs every step that adds the pending conversions itself (control exposures, campaign
--   receipts) before both steps that fold conversions (values, then user state), and the view adds the
--   pending values always. The other steps read no conversion state, so their place does not matter; they
--   keep theirs.
--
-- * The view keeps its body: it is rewritten in place (as 0042 rewrote functions; a view's stored body has no
--   comments to lose), and the migration stops if the body does not read the way it expects.


-- 0043's fold with the values step after the steps that read the pending conversions (its work_mem, security
-- and horizon kept).
create or replace function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    set work_mem = '64MB'
as $function$
declare
    folded bigint;
begin
    if current_setting('transaction_isolation') <> 'repeatable read' then
        raise exception 'fold_report_state must run in a REPEATABLE READ transaction'
            using errcode = 'invalid_transaction_state',
                  hint = 'begin isolation level repeatable read; select cardinal.fold_report_state(); commit;';
    end if;
    -- The same lock fold_report_user_state takes again (advisory locks nest within a transaction).
    if not pg_try_advisory_xact_lock(cardinal.report_state_lock_key()) then
        return null;
    end if;
    -- The links first: they may queue re-keyed events, which the snapshot must hold.
    perform cardinal.fold_identity_links();
    perform cardinal.take_report_fold_snapshot();
    perform cardinal.fold_report_row_days();
    perform cardinal.fold_report_dismissals();
    perform cardinal.fold_report_push_sends();
    perform cardinal.fold_report_parts();
    -- Before the conversion and value state take the pending conversions: these steps add them themselves
    -- (0040, 0043, 0045).
    perform cardinal.fold_report_control_exposures();
    perform cardinal.fold_report_campaign_receipts();
    perform cardinal.fold_report_conversion_values();
    folded := cardinal.fold_report_user_state();
    perform cardinal.drop_report_fold_snapshot();
    -- What this fold could not see: the transactions that began after its snapshot, and those running
    -- then. A REPEATABLE READ transaction keeps one snapshot, so this is the one every step read.
    update cardinal.report_fold_watermark
    set next_xid = pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
        running_xids = array(select x::text::bigint from pg_snapshot_xip(pg_current_snapshot()) as x order by 1);
    return folded;
end
$function$;

comment on function cardinal.fold_report_state() is
    'Folds every unfolded event (report_unfolded_events) into the report state, advances the watermark and '
    'returns how many, or NULL when another fold holds the state lock. Learns identity links first '
    '(fold_identity_links, 0032), then reads the pending events once (take_report_fold_snapshot, 0038) for '
    'every step, report_control_exposures (0040) and report_campaign_receipts (0043) among them, before the '
    'conversions reach report_conversion_value_state and report_conversion_state (0051), and records its '
    'snapshot''s horizon (next_xid, running_xids, 0041). Must run in a REPEATABLE READ transaction.';


do $pending_values$
declare
    marker constant text :=
        '(current_setting(''cardinal.report_fold_snapshot''::text, true) IS DISTINCT FROM ''taken''::text) AND ';
    definition text := pg_catalog.pg_get_viewdef('cardinal.report_pending_campaign_receipts'::regclass);
begin
    if (length(definition) - length(replace(definition, marker, ''))) / length(marker) <> 1 then
        raise exception '0051: report_pending_campaign_receipts does not test the fold snapshot the way this '
                        'migration expects';
    end if;
    execute 'create or replace view cardinal.report_pending_campaign_receipts as '
            || replace(definition, marker, '');
end
$pending_values$;
