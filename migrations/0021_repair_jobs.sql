-- 0021_repair_jobs
--
-- `camlib repair` makes missing or damaged derived files again as jobs, like the rest of
-- the derived work: one `repair` job per asset remakes what that asset lost (thumbnails,
-- Motion Photo movies, auxiliary images' PNGs, camlib's renders from their recipes), so
-- workers on several processes (and later machines) share it, and a repair cut short
-- leaves the rest queued.
--
-- SQLite cannot change a table's CHECK constraints, so `job` is made again with 0019's
-- columns and the new kind, its rows copied (ids kept, and the id sequence, so an id is
-- never given twice), and its indexes made again. With legacy_alter_table the rename
-- leaves the view job_overview and worker.job_id naming `job`, which is the new table.
CREATE TABLE job_new (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT NOT NULL CHECK (kind IN ('thumbnail', 'preview', 'proxy', 'auxPNG', 'render', 'repair')),
    asset_id     INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    resource_id  INTEGER REFERENCES resource(id) ON DELETE CASCADE,
    arguments    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(arguments)),
    dedupe_key   TEXT,
    batch        TEXT,
    state        TEXT NOT NULL DEFAULT 'available'
                 CHECK (state IN ('available', 'running', 'done', 'failed', 'cancelled')),
    priority     INTEGER NOT NULL DEFAULT 0,
    run_after    TEXT NOT NULL,
    attempt      INTEGER NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    host         TEXT,
    pid          INTEGER,
    lease_token  TEXT UNIQUE,
    lease_until  TEXT,
    progress     TEXT CHECK (progress IS NULL OR json_valid(progress)),
    last_error   TEXT,
    -- Once done: a render's {adjustmentId, renders, warnings}; a repair's {actions}.
    result       TEXT CHECK (result IS NULL OR json_valid(result)),
    created_at   TEXT NOT NULL,
    started_at   TEXT,
    finished_at  TEXT,
    CHECK ((state = 'running') = (lease_token IS NOT NULL)),
    CHECK ((state = 'running') = (lease_until IS NOT NULL))
);
INSERT INTO job_new
SELECT id, kind, asset_id, resource_id, arguments, dedupe_key, batch, state, priority, run_after, attempt, max_attempts,
       host, pid, lease_token, lease_until, progress, last_error, result, created_at, started_at, finished_at
FROM job;
UPDATE sqlite_sequence SET seq = max(seq, (SELECT seq FROM sqlite_sequence WHERE name = 'job'))
WHERE name = 'job_new' AND EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'job');
INSERT INTO sqlite_sequence (name, seq)
SELECT 'job_new', seq FROM sqlite_sequence WHERE name = 'job' AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'job_new');
DROP TABLE job;
PRAGMA legacy_alter_table = ON;
ALTER TABLE job_new RENAME TO job;
PRAGMA legacy_alter_table = OFF;

CREATE INDEX job_available ON job(priority, run_after, id) WHERE state = 'available';
CREATE INDEX job_running ON job(lease_until) WHERE state = 'running';
CREATE UNIQUE INDEX job_waiting_once ON job(dedupe_key) WHERE state = 'available' AND dedupe_key IS NOT NULL;
CREATE INDEX job_by_batch ON job(batch, state) WHERE batch IS NOT NULL;
CREATE INDEX job_by_asset ON job(asset_id, kind);
CREATE INDEX job_by_state ON job(state, kind);
