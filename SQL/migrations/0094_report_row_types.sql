-- The report functions that return the same columns return one composite type each, declared once here, in
-- place of the same RETURNS TABLE list written in every body (the state-backed report, the bodies it picks
-- from and its raw-event reference). A function's result type cannot change by CREATE OR REPLACE: they are
-- dropped here, and SQL/code declares them again over the types in the same migrate.

drop function if exists cardinal.anomalies(text, date, date, boolean, text, text);
drop function if exists cardinal.anomalies_from_source(text, date, date, boolean, text, text, boolean);
drop function if exists cardinal.anomalies_reference(text, date, date, boolean, text, text);
drop function if exists cardinal.campaign_conversions(text, date, date, text, boolean);
drop function if exists cardinal.campaign_conversions_from_receipts(text, date, date, text);
drop function if exists cardinal.campaign_conversions_from_user_state(text, date, date, text, boolean);
drop function if exists cardinal.campaign_conversions_reference(text, date, date, text, boolean);
drop function if exists cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text, integer);
drop function if exists cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval, integer);
drop function if exists cardinal.control_arm_covariates(text, text, date, date, timestamptz, text, interval, boolean, text, interval);
drop function if exists cardinal.control_arm_covariates_of_cohort(text, text, date, date, timestamptz, text, interval, boolean, text, interval, boolean);
drop function if exists cardinal.control_arm_covariates_reference(text, text, date, date, timestamptz, text, interval, boolean, text, interval);
drop function if exists cardinal.control_arm_days(text, text, date, date, timestamptz, boolean, boolean);
drop function if exists cardinal.control_arm_days_from_exposures(text, text, date, date, timestamptz);
drop function if exists cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text);
drop function if exists cardinal.control_arms_from_exposures(text, text, date, date, timestamptz, interval);
drop function if exists cardinal.control_arms_from_user_state(text, text, date, date, timestamptz, text, interval, boolean, text);
drop function if exists cardinal.control_arms_of_cohort(text, text, date, date, timestamptz, text, interval, boolean, text, boolean);
drop function if exists cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean, text);
drop function if exists cardinal.control_cohort_from_user_state(text, text, date, date, timestamptz, text, interval, boolean, text);
drop function if exists cardinal.control_cohort_reference(text, text, date, date, timestamptz, text, interval, boolean, text);
drop function if exists cardinal.exposure_anomalies(text, date, date, boolean, text, text);
drop function if exists cardinal.exposure_anomalies_from_counts(text, date, date, text, text);
drop function if exists cardinal.exposure_anomalies_from_user_state(text, date, date, boolean, text, text);
drop function if exists cardinal.exposure_anomalies_reference(text, date, date, boolean, text, text);
drop function if exists cardinal.logging_anomalies(text, date, date, boolean, text, text);
drop function if exists cardinal.logging_anomalies_from_source(text, date, date, boolean, text, text, boolean);
drop function if exists cardinal.push_opens(text, date, date, boolean, text, text);
drop function if exists cardinal.push_opens_reference(text, date, date, boolean, text, text);
drop function if exists cardinal.send_arms(text, text, date, date, boolean);
drop function if exists cardinal.send_arms_from_user_state(text, text, date, date, boolean);
drop function if exists cardinal.unique_impressions(text, date, date, boolean, text, text);
drop function if exists cardinal.unique_impressions_by_part(text, date, date, boolean, text, text, boolean);
drop function if exists cardinal.unique_impressions_from_day_pairs(text, date, date, text, boolean);
drop function if exists cardinal.unique_impressions_from_user_state(text, date, date, boolean, text, text);
drop function if exists cardinal.unique_impressions_reference(text, date, date, boolean, text, text);
drop function if exists cardinal.unique_impressions_reference_unsplit(text, date, date, boolean, text, text);
drop function if exists cardinal.unique_impressions_without_push_opens(text, date, date, boolean, text, text);


create type cardinal.unique_impressions_row as (
    app_name                 text,
    campaign_id              text,
    canvas_id                text,
    canvas_step_id           text,
    variant_id               text,
    channel                  text,
    breakdown                text,
    impressions              bigint,
    unique_impressions       bigint,
    unique_daily_impressions bigint,
    unique_recipients        bigint,
    clicks                   bigint,
    unique_clicks            bigint,
    dismissals               bigint,
    unique_dismissals        bigint,
    click_rate               double precision,
    unique_click_rate        double precision,
    dismissal_rate           double precision,
    unique_dismissal_rate    double precision,
    direct_opens             bigint,
    unique_direct_opens      bigint,
    influenced_opens         bigint,
    total_opens              bigint,
    direct_open_rate         double precision,
    total_open_rate          double precision
);
alter type cardinal.unique_impressions_row owner to cardinal_owner;
comment on type cardinal.unique_impressions_row is
    'A row of the unique-impressions report: unique_impressions, unique_impressions_reference and '
    'unique_impressions_reference_unsplit return it (columns explained on unique_impressions and in '
    'SQL/docs/reports.md).';

create type cardinal.unique_impressions_counts_row as (
    app_name                 text,
    campaign_id              text,
    canvas_id                text,
    canvas_step_id           text,
    variant_id               text,
    channel                  text,
    breakdown                text,
    impressions              bigint,
    unique_impressions       bigint,
    unique_daily_impressions bigint,
    unique_recipients        bigint,
    clicks                   bigint,
    unique_clicks            bigint,
    dismissals               bigint,
    unique_dismissals        bigint,
    click_rate               double precision,
    unique_click_rate        double precision,
    dismissal_rate           double precision,
    unique_dismissal_rate    double precision
);
alter type cardinal.unique_impressions_counts_row owner to cardinal_owner;
comment on type cardinal.unique_impressions_counts_row is
    'A row of the unique-impressions report without its push-open columns: what '
    'unique_impressions_without_push_opens returns, and the bodies it picks from '
    '(unique_impressions_from_user_state, unique_impressions_from_day_pairs, unique_impressions_by_part).';

create type cardinal.push_opens_row as (
    app_name         text,
    campaign_id      text,
    canvas_id        text,
    canvas_step_id   text,
    variant_id       text,
    breakdown        text,
    influenced_opens bigint
);
alter type cardinal.push_opens_row owner to cardinal_owner;
comment on type cardinal.push_opens_row is
    'The influenced push opens of one report row: push_opens and push_opens_reference return it.';

create type cardinal.anomalies_row as (
    kind           text,
    severity       text,
    app_name       text,
    campaign_id    text,
    canvas_id      text,
    canvas_step_id text,
    channel        text,
    platform       text,
    sdk_version    text,
    app_version    text,
    evidence       jsonb,
    likely_cause   text
);
alter type cardinal.anomalies_row owner to cardinal_owner;
comment on type cardinal.anomalies_row is
    'A finding of the anomalies report: anomalies, its halves (exposure_anomalies, logging_anomalies), the '
    'bodies they read (anomalies_from_source, logging_anomalies_from_source, exposure_anomalies_from_counts, '
    'exposure_anomalies_from_user_state) and the references (anomalies_reference, '
    'exposure_anomalies_reference) return it (columns explained on anomalies).';

create type cardinal.control_arms_row as (
    app_name              text,
    campaign_id           text,
    conversion_event      text,
    window_length         interval,
    variant_id            text,
    control               boolean,
    users                 bigint,
    converters            bigint,
    exposed_users         bigint,
    users_in_several_arms bigint,
    canvas_id             text
);
alter type cardinal.control_arms_row owner to cardinal_owner;
comment on type cardinal.control_arms_row is
    'An arm of the control report: control_arms, the bodies it picks from (control_arms_from_exposures, '
    'control_arms_from_user_state, control_arms_of_cohort) and control_arms_reference return it (columns '
    'explained on control_arms).';

create type cardinal.send_arms_row as (
    app_name    text,
    campaign_id text,
    variant_id  text,
    control     boolean,
    users       bigint
);
alter type cardinal.send_arms_row owner to cardinal_owner;
comment on type cardinal.send_arms_row is
    'The users sent each arm of a campaign: send_arms and send_arms_from_user_state return it.';

create type cardinal.control_arm_conversions_row as (
    app_name         text,
    campaign_id      text,
    ordinal          smallint,
    conversion_event text,
    window_length    interval,
    variant_id       text,
    control          boolean,
    users            bigint,
    converters       bigint,
    canvas_id        text
);
alter type cardinal.control_arm_conversions_row owner to cardinal_owner;
comment on type cardinal.control_arm_conversions_row is
    'An arm''s converters for one of its campaign''s conversion goals: control_arm_conversions and '
    'control_arm_conversions_from_exposures return it.';

create type cardinal.control_cohort_row as (
    app_name         text,
    source_id        text,
    conversion_event text,
    window_length    interval,
    variant_id       text,
    control          boolean,
    several_arms     boolean,
    matured          boolean,
    converted        boolean,
    app_id           bigint,
    user_key         text,
    exposed_at       timestamptz
);
alter type cardinal.control_cohort_row owner to cardinal_owner;
comment on type cardinal.control_cohort_row is
    'A user of a control report''s cohort, with arm, maturity and conversion: control_cohort_from_user_state '
    'and control_cohort_reference return it.';

create type cardinal.control_arm_covariates_row as (
    app_name            text,
    campaign_id         text,
    conversion_event    text,
    pre_exposure_window interval,
    variant_id          text,
    control             boolean,
    users               bigint,
    converters          bigint,
    sum_x               bigint,
    sum_x_squares       bigint,
    sum_xy              bigint,
    canvas_id           text
);
alter type cardinal.control_arm_covariates_row owner to cardinal_owner;
comment on type cardinal.control_arm_covariates_row is
    'An arm''s sums for CUPED (x: the user''s conversions in the pre-exposure window, y: converted): '
    'control_arm_covariates, control_arm_covariates_of_cohort and control_arm_covariates_reference return it.';

create type cardinal.control_arm_days_row as (
    day        date,
    variant_id text,
    control    boolean,
    users      bigint,
    converters bigint
);
alter type cardinal.control_arm_days_row owner to cardinal_owner;
comment on type cardinal.control_arm_days_row is
    'An arm''s users and converters as the control report stood at the end of a day: control_arm_days and '
    'control_arm_days_from_exposures return it.';

create type cardinal.campaign_conversions_row as (
    app_name              text,
    campaign_id           text,
    variant_id            text,
    ordinal               smallint,
    conversion_event      text,
    window_length         interval,
    unique_recipients     bigint,
    converters            bigint,
    conversion_rate       double precision,
    revenue               jsonb,
    revenue_per_recipient jsonb
);
alter type cardinal.campaign_conversions_row owner to cardinal_owner;
comment on type cardinal.campaign_conversions_row is
    'A row of the campaign conversions report: campaign_conversions, the bodies it picks from '
    '(campaign_conversions_from_receipts, campaign_conversions_from_user_state) and '
    'campaign_conversions_reference return it.';
