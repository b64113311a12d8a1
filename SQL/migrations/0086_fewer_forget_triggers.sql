-- Two statement triggers of report_user_state deletions now forget what the fold keeps beside the per-user state
-- (SQL/code/070_report_state_fold.sql): forget_report_campaign_rows the users' control exposures and campaign
-- receipts, forget_report_group_rows their dismissals, push sends and message parts. The five triggers and
-- functions they replace had one body each but for the table.

drop trigger if exists report_user_state_forget_control_exposures on cardinal.report_user_state;
drop trigger if exists report_user_state_forget_campaign_receipts on cardinal.report_user_state;
drop trigger if exists report_user_state_forget_dismissals on cardinal.report_user_state;
drop trigger if exists report_user_state_forget_push_sends on cardinal.report_user_state;
drop trigger if exists report_user_state_forget_parts on cardinal.report_user_state;
drop function if exists cardinal.forget_report_control_exposures();
drop function if exists cardinal.forget_report_campaign_receipts();
drop function if exists cardinal.forget_report_dismissals();
drop function if exists cardinal.forget_report_push_sends();
drop function if exists cardinal.forget_report_parts();
