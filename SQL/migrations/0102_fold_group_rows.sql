-- The fold's three steps over the per-group tables (dismissals, push sends, message parts) are one step,
-- fold_report_group_rows (a function of the code files), as forget_report_group_rows is one trigger for the same
-- tables. No table changes.

drop function if exists cardinal.fold_report_dismissals();
drop function if exists cardinal.fold_report_push_sends();
drop function if exists cardinal.fold_report_parts();
