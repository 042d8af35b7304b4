-- Which run of the bot is answering an update (`claimed_by`, a replica id made when the store
-- opens) and until when its claim holds (`lease_until`, ms). On SQLite one process has the file,
-- so an update claimed by another run is one the last run left unfinished; PostgreSQL replicas
-- use the lease too. NULL for rows recorded before (all left by an earlier run).
ALTER TABLE processed_updates ADD COLUMN claimed_by TEXT;
ALTER TABLE processed_updates ADD COLUMN lease_until INTEGER;
