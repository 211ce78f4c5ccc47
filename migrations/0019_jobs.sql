-- 0019_jobs
--
-- Derived work (thumbnails, browsers' previews and H.264 proxies, auxiliary images' PNGs,
-- edits' renders) as durable jobs in the catalog, run by `camlib worker`, by `camlib
-- import` for the jobs it made, and by the workers `camlib serve` starts. The design is
-- the one of the PostgreSQL queues Oban, River and Solid Queue:
--   * a claim is one short write transaction that takes the first available jobs in
--     priority order and leases them: state 'running', a fresh lease token, lease_until
--     about a minute ahead;
--   * a worker renews its leases by a heartbeat while the work goes on;
--   * a worker finishes a job in the same transaction as the catalog rows the job
--     writes, and only "where lease_token is still mine": a worker whose lease expired
--     and was taken over commits nothing (fencing);
--   * a lease that expires (its worker was killed, stopped or lost) goes back to
--     'available' with a backoff, or to 'failed' after the last attempt.
-- Times are UTC, ISO 8601 with milliseconds (the catalog's clock: strftime in SQLite).

CREATE TABLE job (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT NOT NULL CHECK (kind IN ('thumbnail', 'preview', 'proxy', 'auxPNG', 'render')),
    asset_id     INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    resource_id  INTEGER REFERENCES resource(id) ON DELETE CASCADE,  -- the file it reads, when it reads one
    arguments    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(arguments)),
    -- One job waiting per key (a render per asset, a proxy per movie file): a job made
    -- while one with the same key waits replaces its arguments instead.
    dedupe_key   TEXT,
    -- A set of jobs made together (an import, a batch edit), followed as one.
    batch        TEXT,
    state        TEXT NOT NULL DEFAULT 'available'
                 CHECK (state IN ('available', 'running', 'done', 'failed', 'cancelled')),
    priority     INTEGER NOT NULL DEFAULT 0,   -- lower runs first
    run_after    TEXT NOT NULL,                -- not claimed before (a retry's backoff)
    attempt      INTEGER NOT NULL DEFAULT 0 CHECK (attempt >= 0),  -- claims so far
    max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    host         TEXT,                         -- the worker holding it: host name
    pid          INTEGER,                      --   and process id
    lease_token  TEXT UNIQUE,                  -- set while running, new at every claim
    lease_until  TEXT,
    progress     TEXT CHECK (progress IS NULL OR json_valid(progress)),
    last_error   TEXT,                         -- names the asset and the file
    result       TEXT CHECK (result IS NULL OR json_valid(result)),  -- once done: a render's {warnings}
    created_at   TEXT NOT NULL,
    started_at   TEXT,                         -- of the latest attempt
    finished_at  TEXT,
    CHECK ((state = 'running') = (lease_token IS NOT NULL)),
    CHECK ((state = 'running') = (lease_until IS NOT NULL))
);
-- The claim: available jobs in the order they run.
CREATE INDEX job_available ON job(priority, run_after, id) WHERE state = 'available';
-- Expired leases.
CREATE INDEX job_running ON job(lease_until) WHERE state = 'running';
CREATE UNIQUE INDEX job_waiting_once ON job(dedupe_key) WHERE state = 'available' AND dedupe_key IS NOT NULL;
CREATE INDEX job_by_batch ON job(batch, state) WHERE batch IS NOT NULL;
CREATE INDEX job_by_asset ON job(asset_id, kind);
CREATE INDEX job_by_state ON job(state, kind);

-- The processes that run jobs, while they run: each renews its row with its leases.
-- A row whose heartbeat is older than a few leases belongs to a worker that is gone.
CREATE TABLE worker (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    host         TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    kinds        TEXT NOT NULL,                -- comma-separated job kinds it takes
    job_id       INTEGER REFERENCES job(id) ON DELETE SET NULL,  -- what it runs now
    started_at   TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL,
    UNIQUE (host, pid)
);

-- For people who query with sqlite3: how much work there is, by kind and state.
CREATE VIEW job_overview AS
SELECT kind, state, count(*) AS jobs, min(created_at) AS oldest, max(finished_at) AS latest_finished
FROM job GROUP BY kind, state;
