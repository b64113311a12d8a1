-- One statement trigger of report_control_exposures now keeps both of its counts
-- (SQL/code/080_report_state_counts.sql): count_control_exposure_days reads the changed rows on their
-- campaign's clock once for report_control_exposure_days and report_control_goal_days, and
-- recount_control_exposure_days recounts both. The goal counts' own triggers and functions go.

drop trigger if exists report_control_exposures_count_goals_inserted on cardinal.report_control_exposures;
drop trigger if exists report_control_exposures_count_goals_updated on cardinal.report_control_exposures;
drop trigger if exists report_control_exposures_count_goals_deleted on cardinal.report_control_exposures;
drop function if exists cardinal.count_control_goal_days();
drop function if exists cardinal.recount_control_goal_days(bigint, text);
