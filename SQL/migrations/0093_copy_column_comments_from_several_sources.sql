-- copy_column_comments now takes its sources as a variadic list (the first that comments a column gives it its
-- comment), and the code files call it for every view that mirrors another relation's columns. SQL/code
-- declares the new signature; the two-argument one goes. Two comments of report_control say what
-- latest_control said of the same columns, so that the view takes every comment from the table.

drop function if exists cardinal.copy_column_comments(regclass, regclass);

comment on column cardinal.report_control.srm_split_source is
    'Where the expected split of the sample ratio check came from: configured (campaigns set --split), '
    'learned_from_sends (users per arm of the campaign''s sends), or unknown (then the check was skipped); '
    'NULL in runs stored before the split source was recorded.';
comment on column cardinal.report_control.always_valid_difference_ci95_lower is
    'Always-valid 95% interval of difference (Howard et al.''s asymptotic confidence sequence, tuned for 5000 '
    'users), lower bound; variant rows; NULL when nobody or everybody converted in both arms, and in runs '
    'stored before the always-valid numbers were.';
