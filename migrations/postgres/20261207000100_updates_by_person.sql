-- A person's updates by time: the statement that stores an update counts those other replicas
-- took in (unfinished, and in the last minute), so the per-person limits hold across replicas.
CREATE INDEX processed_updates_by_person ON processed_updates (user_id, received_at);
