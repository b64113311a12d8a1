-- Push dismissal rates (issue 44): a push has no impressions, so unique_impressions rates its dismissals over the
-- users it reached (unique_recipients) instead of leaving them NULL. The rates function takes the row's channel
-- and recipients for that; the code files create it with its new arguments, and its callers with the new call.

drop function if exists cardinal.unique_impressions_rates(bigint, bigint, bigint, bigint, bigint, bigint);
