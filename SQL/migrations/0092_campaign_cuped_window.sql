-- CUPED's pre-exposure window per campaign (issue 47, variance reduction): the control report adjusts each
-- variant's lift by the users' conversions of the same event in this window before their first exposure
-- (cardinal.control_arm_covariates, SQL/code/110_control.sql). NULL keeps the default of 14 days: two weeks
-- hold two of each weekday of a user's habit, and a campaign's users are rarely seen much longer before it.
--
-- The two cohort functions the covariates read gain the user's app, key and first exposure as result columns,
-- which CREATE OR REPLACE cannot add: they go here, and the code files create them again in the same migrate.

alter table cardinal.campaign_settings
    add column cuped_window interval,
    add constraint campaign_settings_cuped_window_range check (
        cuped_window between interval '1 hour' and interval '90 days'
        and extract(year from cuped_window) = 0
        and extract(month from cuped_window) = 0
    );

comment on column cardinal.campaign_settings.cuped_window is
    'How long before a user''s first exposure (the control report''s exposure) CUPED counts the user''s '
    'conversions of the campaign''s conversion event as the covariate of the adjusted lift; NULL means 14 days. '
    '1 hour to 90 days, no months.';

drop function if exists cardinal.control_cohort_from_user_state(text, text, date, date, timestamptz, text, interval,
                                                                 boolean, text);
drop function if exists cardinal.control_cohort_reference(text, text, date, date, timestamptz, text, interval, boolean,
                                                           text);
