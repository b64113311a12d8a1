-- Functions that carried a migration number in their name. SQL/code declares each again under a name that says
-- what it does (the bodies are unchanged); a database that migrations 0001–0083 built still holds the old names,
-- and cardinal migrate refuses a function that no code file declares. On a new database they never existed.
--
--   anomalies_of_0017                     exposure_anomalies_from_user_state
--   anomalies_of_0017_from_counts         exposure_anomalies_from_counts
--   anomalies_reference_of_0017           exposure_anomalies_reference
--   anomalies_since_0027                  logging_anomalies_from_source
--   unique_impressions_of_0025            unique_impressions_without_push_opens
--   unique_impressions_reference_of_0029  unique_impressions_reference_unsplit
--   erase_identity_of_0022                erase_identity_events

drop function if exists cardinal.anomalies_of_0017(text, date, date, boolean, text, text);
drop function if exists cardinal.anomalies_of_0017_from_counts(text, date, date, text, text);
drop function if exists cardinal.anomalies_reference_of_0017(text, date, date, boolean, text, text);
drop function if exists cardinal.anomalies_since_0027(text, date, date, boolean, text, text, boolean);
drop function if exists cardinal.unique_impressions_of_0025(text, date, date, boolean, text, text);
drop function if exists cardinal.unique_impressions_reference_of_0029(text, date, date, boolean, text, text);
drop function if exists cardinal.erase_identity_of_0022(bigint, text, text, boolean);
