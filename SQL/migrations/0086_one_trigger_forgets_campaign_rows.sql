-- One statement trigger of report_user_state deletions now forgets both per-campaign row tables of the users
-- whose state was deleted (forget_report_campaign_rows in SQL/code/070_report_state_fold.sql): the two
-- triggers and functions it replaces had the same body but for the table.

drop trigger if exists report_user_state_forget_control_exposures on cardinal.report_user_state;
drop trigger if exists report_user_state_forget_campaign_receipts on cardinal.report_user_state;
drop function if exists cardinal.forget_report_control_exposures();
drop function if exists cardinal.forget_report_campaign_receipts();
