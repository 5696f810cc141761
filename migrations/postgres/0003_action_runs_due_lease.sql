-- Owed action runs are leased to the node running them, so recovery on another node takes a
-- run only once its lease lapsed (a crashed node stops renewing).
ALTER TABLE action_runs_due ADD COLUMN lease_until bigint;
