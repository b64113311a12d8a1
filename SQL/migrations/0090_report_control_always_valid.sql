-- A stored run keeps the control report's always-valid numbers, the significance rule each campaign was judged
-- by and its verdict, and the minimum detectable effect, beside the fixed-horizon numbers it kept already
-- (docs/experiment-statistics.md), so that latest_control, the Experiments dashboard and psql show what
-- `cardinal report control` shows. The columns are named as the report's CSV columns. Runs stored before this
-- migration have NULL in all of them.
--
-- The run's findings may now hold variant_worse_than_control from the control report too: the comments of
-- report_anomalies say so.

alter table cardinal.report_control
    add column always_valid_difference_ci95_lower double precision,
    add column always_valid_difference_ci95_upper double precision,
    add column always_valid_lift_ci95_lower double precision,
    add column always_valid_lift_ci95_upper double precision,
    add column always_valid_p_value double precision,
    add column always_valid_p_value_holm double precision,
    add column significance text,
    add column significance_source text,
    add column significant boolean,
    add column mde double precision,
    add column mde_lift double precision,
    add constraint report_control_significance_known check (significance in ('sequential', 'fixed')),
    add constraint report_control_significance_source_known
        check (significance_source in ('option', 'campaign', 'default'));

comment on table cardinal.report_control is
    'The control-group report of each report run: one row per campaign and arm, the control arm first; '
    'comparison columns are set on variant rows (against the campaign''s control arm), srm_* repeat the '
    'campaign''s sample ratio check and significance, significance_source its significance rule on each of its '
    'rows. Read the newest with cardinal.latest_control.';

comment on column cardinal.report_control.always_valid_difference_ci95_lower is
    'Always-valid 95% interval of difference (Howard et al.''s asymptotic confidence sequence, tuned for 5000 '
    'users), lower bound; variant rows; NULL when nobody or everybody converted in both arms.';
comment on column cardinal.report_control.always_valid_difference_ci95_upper is
    'Always-valid 95% interval of difference, upper bound.';
comment on column cardinal.report_control.always_valid_lift_ci95_lower is
    'Always-valid 95% interval of relative_lift (delta method, symmetric around the lift), lower bound; NULL '
    'also when the control rate is 0.';
comment on column cardinal.report_control.always_valid_lift_ci95_upper is
    'Always-valid 95% interval of relative_lift, upper bound.';
comment on column cardinal.report_control.always_valid_p_value is
    'Always-valid p-value of difference = 0: at most 0.05 exactly when the always-valid difference interval '
    'excludes 0, however often the report is read.';
comment on column cardinal.report_control.always_valid_p_value_holm is
    'always_valid_p_value adjusted by Holm across the campaign''s variants.';
comment on column cardinal.report_control.significance is
    'The rule that decided significant for the campaign (on each of its rows): sequential '
    '(always_valid_p_value_holm < 0.05) or fixed (p_value_holm < 0.05).';
comment on column cardinal.report_control.significance_source is
    'Where significance came from: option (report control --significance), campaign (campaign_settings.'
    'significance) or default (sequential: the campaign sets none).';
comment on column cardinal.report_control.significant is
    'Whether the variant differs from control under significance (variant rows); NULL when the p-value it '
    'needs is undefined. A variant significantly below control is a variant_worse_than_control finding.';
comment on column cardinal.report_control.mde is
    'Minimum detectable difference at today''s matured users: two-sided alpha 0.05, power 0.8, both arms at '
    'the control rate (variant rows).';
comment on column cardinal.report_control.mde_lift is
    'mde as a relative lift: mde / control rate; NULL when the control rate is 0.';

comment on table cardinal.report_anomalies is
    'Findings of the anomalies report (cardinal.anomalies plus sample_ratio_mismatch and '
    'variant_worse_than_control from the control report) of each report run, by campaign or canvas step. Read '
    'the newest with cardinal.latest_anomalies.';
comment on column cardinal.report_anomalies.kind is
    'What is wrong: a kind of cardinal.anomalies, or sample_ratio_mismatch or variant_worse_than_control from '
    'the control report (definitions in SQL/docs/reports.md).';
