-- Report sessions copy the events not folded yet into a temporary table once per report
-- (cardinal.take_report_pending_copy) instead of reading them again in every view: the reader role may
-- create temporary tables in this database, as the ingest role already may.
do $database$
begin
    execute format('grant temporary on database %I to cardinal_reader', current_database());
end
$database$;
