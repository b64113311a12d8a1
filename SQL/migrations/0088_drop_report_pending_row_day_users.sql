-- The fold computes the day pairs its pending events change in the statement that merges their days
-- (cardinal.fold_report_row_days, SQL/code/070_report_state_fold.sql), which reads the pending days once; the
-- view that computed the pairs apart, read by nothing else, goes.

drop view if exists cardinal.report_pending_row_day_users;
