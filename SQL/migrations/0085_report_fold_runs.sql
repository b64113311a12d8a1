-- The report-state fold's recent runs, from which cardinal.report_fold_rate() tells how fast the fold folds,
-- how fast events arrive for it and when the backlog will be drained (cardinald's /metrics, `cardinal state
-- status`). fold_report_state() adds a row per fold and deletes the rows of an hour ago, so the table stays
-- small: about 720 rows at cardinald's fold every 5 s.

create table cardinal.report_fold_runs (
    started_at    timestamptz not null,
    finished_at   timestamptz not null,
    events        bigint      not null,
    backlog_after bigint      not null,
    constraint report_fold_runs_finished_after_start check (finished_at >= started_at),
    constraint report_fold_runs_counts_non_negative check (events >= 0 and backlog_after >= 0)
);

alter table cardinal.report_fold_runs owner to cardinal_owner;
grant select on table cardinal.report_fold_runs to cardinal_reader;

comment on table cardinal.report_fold_runs is
    'One row per report-state fold (fold_report_state) of the last hour, written by the fold itself in its '
    'transaction: a fold that did not get the state lock, or that failed, has none. Each fold deletes the rows '
    'that finished more than an hour before it. report_fold_rate() reads it.';
comment on column cardinal.report_fold_runs.started_at is
    'When the fold began (clock time at the start of fold_report_state, right after its transaction''s '
    'snapshot of the events to fold was taken).';
comment on column cardinal.report_fold_runs.finished_at is
    'When the fold had done its work (clock time at the end of fold_report_state, before its commit); '
    'finished_at - started_at is the time it spent folding.';
comment on column cardinal.report_fold_runs.events is
    'How many events the fold folded: what fold_report_state() returned.';
comment on column cardinal.report_fold_runs.backlog_after is
    'How many of the events the fold''s snapshot held unfolded it left for later (report_state_backlog() '
    'in its transaction, at its end): the rest of a queue longer than cardinal.fold_queue_budget, else 0. '
    'events + backlog_after is the backlog the fold saw when it began. Events stored after that snapshot are '
    'not counted here.';
