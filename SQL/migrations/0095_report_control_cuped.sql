-- A stored run keeps the control report's CUPED numbers when `cardinal report run --cuped` computed them, so that
-- latest_control, the Experiments dashboard and psql show what `cardinal report control --cuped` shows
-- (docs/experiment-statistics.md, CUPED). The columns are named as the report's CSV columns, plus θ and the
-- window, which the JSON output carries. They are NULL on control rows, on variants CUPED did not adjust (no
-- variation of the covariate), in runs without --cuped and in runs stored before this migration.

alter table cardinal.report_control
    add column cuped_window interval,
    add column cuped_theta double precision,
    add column cuped_difference double precision,
    add column cuped_difference_ci95_lower double precision,
    add column cuped_difference_ci95_upper double precision,
    add column cuped_lift double precision,
    add column cuped_lift_ci95_lower double precision,
    add column cuped_lift_ci95_upper double precision,
    add column cuped_p_value double precision,
    add column cuped_variance_reduction double precision;

comment on column cardinal.report_control.cuped_window is
    'CUPED''s pre-exposure window of the campaign (on each of its rows): a user''s conversions of the conversion '
    'event in [exposure − window, exposure) are the covariate. NULL when the run did not compute CUPED '
    '(report run without --cuped) or the campaign has no conversion event.';
comment on column cardinal.report_control.cuped_theta is
    'θ = Cov(x, y) / Var(x) over the variant''s and control''s users, y converted (0 or 1), x the covariate '
    '(variant rows); NULL when CUPED did not adjust the variant (x does not vary over both arms).';
comment on column cardinal.report_control.cuped_difference is
    'CUPED-adjusted difference of conversion rates, (ȳ_v − θ·x̄_v) − (ȳ_c − θ·x̄_c) (variant rows).';
comment on column cardinal.report_control.cuped_difference_ci95_lower is
    'Normal 95% interval of cuped_difference, lower bound; NULL when its variance is 0.';
comment on column cardinal.report_control.cuped_difference_ci95_upper is
    'Normal 95% interval of cuped_difference, upper bound.';
comment on column cardinal.report_control.cuped_lift is
    'cuped_difference over control''s unadjusted rate; NULL when that rate is 0.';
comment on column cardinal.report_control.cuped_lift_ci95_lower is
    'Delta-method 95% interval of cuped_lift, lower bound.';
comment on column cardinal.report_control.cuped_lift_ci95_upper is
    'Delta-method 95% interval of cuped_lift, upper bound.';
comment on column cardinal.report_control.cuped_p_value is
    'Two-sided p-value of cuped_difference = 0, not Holm-adjusted; it does not decide significant.';
comment on column cardinal.report_control.cuped_variance_reduction is
    'Share of the difference''s variance CUPED removed, 1 − V_adjusted / V_unadjusted (about the squared '
    'correlation of x and y).';
