-- A campaign's own choice of the numbers that call a variant significant in the control report and raise
-- variant_worse_than_control for --fail-on (docs/experiment-statistics.md): the always-valid ones, right however
-- often the nightly report is read, or the fixed-horizon ones, for a campaign read once at a sample fixed in
-- advance. NULL keeps the default, sequential, so existing campaigns change nothing; `cardinal report control
-- --significance` overrides it for one report.

alter table cardinal.campaign_settings
    add column significance text,
    add constraint campaign_settings_significance_known check (significance in ('sequential', 'fixed'));

comment on column cardinal.campaign_settings.significance is
    'Which Holm-adjusted p-value below 0.05 makes a variant significant in the control report, and so raises '
    'variant_worse_than_control: sequential (always-valid, right however often the report is read) or fixed '
    '(fixed-horizon, one look at a sample fixed in advance); NULL = sequential. Set with cardinal campaigns set '
    '--significance; cardinal report control --significance overrides it for one report.';
