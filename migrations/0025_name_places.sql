-- 0025_name_places
--
-- Places by name: each still's and movie's location named after the nearest place of
-- GeoNames' cities data (city within 25 km, else region and country within 100 km), as
-- import names it from now on. `place` holds each distinct name once (a few thousand rows
-- however large the library, '' where a part is unknown, as `camera` does), so `--place`
-- and the search box look there first and then find the files by `metadata.place_id`.
CREATE TABLE place (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    city         TEXT NOT NULL,  -- '' when the nearest place is over 25 km away
    region       TEXT NOT NULL,  -- a state, a province; '' where GeoNames has none
    country_code TEXT NOT NULL,  -- ISO 3166-1 alpha-2
    country      TEXT NOT NULL,  -- in English
    UNIQUE (city, region, country_code)
);

ALTER TABLE metadata ADD COLUMN place_id INTEGER REFERENCES place(id);
CREATE INDEX metadata_by_place_id ON metadata(place_id) WHERE place_id IS NOT NULL;

-- asset_summary reads none of a place: naming a file's place leaves its summary alone
-- (0008's trigger rewrote it on any change). These are the metadata columns the summary
-- reads, through asset_overview.
DROP TRIGGER asset_summary_metadata_update;
CREATE TRIGGER asset_summary_metadata_update AFTER UPDATE OF resource_id, captured_at, make, model, duration ON metadata BEGIN
    INSERT INTO asset_summary_refresh SELECT DISTINCT asset_id FROM resource WHERE id IN (OLD.resource_id, NEW.resource_id);
END;

-- A `place` job names the places of one asset's files. SQLite cannot change a table's
-- CHECK constraints, so `job` is made again as 0021 made it, with the new kind.
CREATE TABLE job_new (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT NOT NULL CHECK (kind IN ('thumbnail', 'preview', 'proxy', 'auxPNG', 'render', 'repair', 'place')),
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

-- A library imported before places has none: one `place` job for each asset with a
-- located still or movie, in the trash or not, behind the derived files people wait for.
INSERT INTO job (kind, asset_id, dedupe_key, priority, run_after, created_at)
SELECT 'place', a.asset_id, 'place:' || a.asset_id, 20,
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM (SELECT DISTINCT r.asset_id FROM metadata m JOIN resource r ON r.id = m.resource_id
      WHERE m.latitude IS NOT NULL AND m.longitude IS NOT NULL ORDER BY r.asset_id) AS a;
