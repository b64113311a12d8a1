-- explain.sql — EXPLAIN (ANALYZE, BUFFERS) of each report function's query on the seeded database
-- (seed.sql), as regenerate.sh runs it. The functions are inlined SQL functions, so the plans below are those
-- of their bodies, with the arguments as constants, exactly as a psql user's call is planned; unique_impressions
-- is PL/pgSQL choosing between two SQL functions (0025), so the plans are those of the one it calls. The range is
-- the last 30 days up to yesterday; c06 is an in-app-message campaign. regenerate.sh sets
-- :outdir; each report's plans go to <outdir>/<function>.txt.

\set to_date `date -u -d yesterday +%F`
\set from_date `date -u -d '30 days ago' +%F`
\pset pager off
\pset footer off
set max_parallel_workers_per_gather = 0;
set work_mem = '64MB';

\o :outdir/unique_impressions.txt
\qecho '### unique_impressions: one app, every campaign, 30 days'
explain (analyze, buffers, costs off, timing off, summary on)
select * from cardinal.unique_impressions_from_day_pairs('shop', :'from_date', :'to_date', null, false);

\qecho '### unique_impressions: one campaign, by day'
explain (analyze, buffers, costs off, timing off, summary on)
select * from cardinal.unique_impressions_from_day_pairs('shop', :'from_date', :'to_date', 'c06', true);

\qecho '### unique_impressions: one campaign, by platform (the per-user state)'
explain (analyze, buffers, costs off, timing off, summary on)
select * from cardinal.unique_impressions_from_user_state('shop', :'from_date', :'to_date', campaign => 'c06',
                                                          by => 'platform');

\o :outdir/anomalies.txt
\qecho '### anomalies: one app, every campaign, 30 days'
explain (analyze, buffers, costs off, timing off, summary on)
select * from cardinal.anomalies('shop', :'from_date', :'to_date');

\qecho '### anomalies: one campaign'
explain (analyze, buffers, costs off, timing off, summary on)
select * from cardinal.anomalies('shop', :'from_date', :'to_date', campaign => 'c06');

\o :outdir/control_arms.txt
\qecho '### control_arms: one app, every campaign, 30 days'
explain (analyze, buffers, costs off, timing off, summary on)
select * from cardinal.control_arms('shop', null, :'from_date', :'to_date');

\qecho '### control_arms: one campaign'
explain (analyze, buffers, costs off, timing off, summary on)
select * from cardinal.control_arms('shop', 'c06', :'from_date', :'to_date');
\o
