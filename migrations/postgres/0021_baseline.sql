-- 0021_baseline (PostgreSQL)
--
-- The catalog as SQLite has it after migrations/0001 to 0021, for PostgreSQL 15 or newer:
-- a library whose catalog is on a server starts here, and records 0001 to 0021 as applied,
-- so both backends list the same migrations. Every later SQLite migration has its twin of
-- the same name in this folder (CatalogMigrationTests checks the two lists).
--
-- What differs from SQLite, and why:
--   * ids are identity columns; like AUTOINCREMENT, an id is never given out twice.
--   * Text is compared byte by byte, as SQLite's BINARY collation does: every text column
--     is COLLATE "C", whatever the server's locale, so sort keys and cursors are the same.
--   * lower() of a file name is ascii_lower(): SQLite's lower() folds ASCII letters only,
--     and a sort key must not depend on the server's ctype.
--   * julianday() is defined here with SQLite's meaning (UTC Julian day, to the
--     millisecond, NULL for text that is not a time), so captured_julian and the views
--     that use it hold the same numbers, and the same questions work in sqlite3 and psql.
--   * JSON is json (aux_image.encoding, a job's arguments, progress and result): checked
--     as JSON and kept as written, so camlib prints it the same from both backends (jsonb
--     would reorder its keys and respace it); views read it with ->> where SQLite has
--     json_extract. Adjustment data is text: Apple's is not always JSON.
--   * asset_summary is kept by trigger functions: asset_summary_refresh(asset) rewrites
--     an asset's row where SQLite inserts into asset_summary_refresh. Names are searched
--     through a pg_trgm index on asset_summary.names instead of an FTS5 trigram table.
--   * Integer truth values stay integers (edited, adjustment_history.current), so
--     `WHERE edited = 1` means the same in both.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- SQLite's lower(): ASCII letters only.
CREATE FUNCTION ascii_lower(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN translate(t, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');

-- SQLite's julianday() of an ISO 8601 time: YYYY-MM-DD, then optionally [T ]HH:MM[:SS[.fff]]
-- and an offset or Z; without an offset the time is taken as UTC. Counted as SQLite's
-- computeJD counts, in whole milliseconds since the Julian epoch divided by 86,400,000:
-- a day past the month's end runs on into the next month (2023-02-30 is 2023-03-02), as
-- in SQLite; text that is not such a time is NULL.
CREATE FUNCTION julianday(t text) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    part text[];
    days bigint;
    ms bigint;
BEGIN
    part := regexp_match(t, '^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?)?(?:([+-])(\d{2}):(\d{2})|Z)?$');
    IF part IS NULL OR part[2]::int NOT BETWEEN 1 AND 12 OR part[3]::int NOT BETWEEN 1 AND 31
       OR coalesce(part[4]::int, 0) > 24 OR coalesce(part[5]::int, 0) > 59 OR coalesce(part[6]::double precision, 0) >= 60 THEN
        RETURN NULL;
    END IF;
    days := (make_date(part[1]::int, part[2]::int, 1) - date '1970-01-01') + part[3]::int - 1;
    ms := days * 86400000 + 210866760000000
        + coalesce(part[4]::bigint, 0) * 3600000 + coalesce(part[5]::bigint, 0) * 60000
        + floor(coalesce(part[6]::double precision, 0) * 1000 + 0.5)::bigint;
    IF part[7] IS NOT NULL THEN
        ms := ms - (CASE part[7] WHEN '-' THEN -1 ELSE 1 END) * (part[8]::bigint * 60 + part[9]::bigint) * 60000;
    END IF;
    RETURN ms::double precision / 86400000.0;
EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR numeric_value_out_of_range THEN
    RETURN NULL;
END $$;

-- A Julian day as SQLite's strftime('%Y-%m-%dT%H:%M:%fZ', day) writes it.
CREATE FUNCTION julian_iso(day double precision) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN to_char(to_timestamp(round(day * 86400000.0 - 210866760000000) / 1000.0) AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

-- The catalog's clock: UTC, ISO 8601 with milliseconds (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')).
CREATE FUNCTION catalog_now() RETURNS text
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

-- The catalog's clock `seconds` from now (strftime(..., 'now', '+N seconds')).
CREATE FUNCTION catalog_later(seconds double precision) RETURNS text
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN to_char((clock_timestamp() + make_interval(secs => seconds)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

-- SQLite's GLOB pattern as an anchored regular expression: * any run, ? one character,
-- [...] one of a class ([^...] none of it; a ] first is one of its characters; a-z a
-- range), anything else itself, case kept. NULL for a class left open, which SQLite's
-- GLOB matches with nothing.
CREATE FUNCTION glob_regex(pattern text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    out text := '^';
    i int := 1;
    n int := length(pattern);
    c text;
BEGIN
    WHILE i <= n LOOP
        c := substr(pattern, i, 1);
        IF c = '*' THEN
            out := out || '.*';
        ELSIF c = '?' THEN
            out := out || '.';
        ELSIF c = '[' THEN
            out := out || '[';
            i := i + 1;
            IF substr(pattern, i, 1) = '^' THEN out := out || '^'; i := i + 1; END IF;
            IF substr(pattern, i, 1) = ']' THEN out := out || '\]'; i := i + 1; END IF;
            WHILE i <= n AND substr(pattern, i, 1) <> ']' LOOP
                c := substr(pattern, i, 1);
                out := out || CASE WHEN c IN ('\', '[', '^') THEN '\' || c ELSE c END;
                i := i + 1;
            END LOOP;
            IF i > n THEN RETURN NULL; END IF;
            out := out || ']';
        ELSIF c ~ '[.^$+?()\[\]{}|\\]' THEN
            out := out || '\' || c;
        ELSE
            out := out || c;
        END IF;
        i := i + 1;
    END LOOP;
    RETURN out || '$';
END $$;

-- SQLite's glob(pattern, text): whether text matches the GLOB pattern.
CREATE FUNCTION glob(pattern text, value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN value ~ glob_regex(pattern);

CREATE TABLE asset (
    id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    kind        text COLLATE "C" NOT NULL CHECK (kind IN ('photo', 'live', 'video', 'motion')),
    imported_at text COLLATE "C" NOT NULL
);

CREATE TABLE resource (
    id            bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    asset_id      bigint NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    role          text COLLATE "C" NOT NULL CHECK (role IN ('photo', 'pairedVideo', 'video', 'thumbnail',
                                                          'adjustmentSidecar', 'renderedPhoto', 'renderedVideo')),
    path          text COLLATE "C" NOT NULL UNIQUE,
    sha256        text COLLATE "C" NOT NULL CHECK (length(sha256) = 64),
    bytes         bigint NOT NULL CHECK (bytes >= 0),
    mime          text COLLATE "C" NOT NULL,
    derived_from  bigint REFERENCES resource(id) ON DELETE CASCADE,
    original_name text COLLATE "C",
    source_dir    text COLLATE "C",
    added_at      text COLLATE "C" NOT NULL,
    lower_name    text COLLATE "C"
);
CREATE UNIQUE INDEX resource_one_still ON resource(asset_id) WHERE role = 'photo';
CREATE UNIQUE INDEX resource_one_movie ON resource(asset_id) WHERE role IN ('pairedVideo', 'video');
CREATE UNIQUE INDEX resource_one_thumbnail ON resource(derived_from) WHERE role = 'thumbnail';
CREATE UNIQUE INDEX resource_unique_attachment ON resource(asset_id, role, sha256)
    WHERE role IN ('adjustmentSidecar', 'renderedPhoto', 'renderedVideo');
CREATE UNIQUE INDEX resource_unique_original ON resource(sha256)
    WHERE role IN ('photo', 'pairedVideo', 'video') AND derived_from IS NULL;
CREATE INDEX resource_by_asset ON resource(asset_id, role);
CREATE INDEX resource_by_source ON resource(source_dir);
CREATE INDEX resource_by_sha256 ON resource(sha256);

CREATE TABLE metadata (
    resource_id            bigint PRIMARY KEY REFERENCES resource(id) ON DELETE CASCADE,
    format                 text COLLATE "C" NOT NULL,
    captured_at            text COLLATE "C",
    utc_offset_minutes     integer,
    make                   text COLLATE "C",
    model                  text COLLATE "C",
    software               text COLLATE "C",
    lens_make              text COLLATE "C",
    lens_model             text COLLATE "C",
    latitude               double precision,
    longitude              double precision,
    altitude               double precision,
    width                  integer,
    height                 integer,
    orientation            integer NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
    duration               double precision,
    video_codec            text COLLATE "C",
    audio_codec            text COLLATE "C",
    frame_rate             double precision,
    content_identifier     text COLLATE "C",
    live_photo_video_index bigint,
    warnings               text COLLATE "C",
    still_image_time       double precision
);
CREATE INDEX metadata_by_content_identifier ON metadata(content_identifier) WHERE content_identifier IS NOT NULL;
CREATE INDEX metadata_by_place ON metadata(latitude, longitude) WHERE latitude IS NOT NULL;

CREATE TABLE pairing (
    asset_id           bigint PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    photo_resource_id  bigint NOT NULL UNIQUE REFERENCES resource(id) ON DELETE CASCADE,
    video_resource_id  bigint NOT NULL UNIQUE REFERENCES resource(id) ON DELETE CASCADE,
    rule               text COLLATE "C" NOT NULL CHECK (rule IN ('contentIdentifier', 'stem')),
    content_identifier text COLLATE "C",
    confidence         double precision NOT NULL CHECK (confidence > 0 AND confidence <= 1),
    paired_at          text COLLATE "C" NOT NULL
);

CREATE TABLE embedded_movie (
    resource_id       bigint PRIMARY KEY REFERENCES resource(id) ON DELETE CASCADE,
    still_resource_id bigint NOT NULL UNIQUE REFERENCES resource(id) ON DELETE CASCADE,
    "offset"          bigint NOT NULL CHECK ("offset" >= 0),
    length            bigint NOT NULL CHECK (length > 0),
    declared_by       text COLLATE "C" NOT NULL,
    note              text COLLATE "C"
);

CREATE TABLE adjustment (
    id                  bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    asset_id            bigint NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    format_identifier   text COLLATE "C" NOT NULL,
    format_version      text COLLATE "C" NOT NULL,
    data                text COLLATE "C" NOT NULL,
    applies_to          text COLLATE "C" NOT NULL DEFAULT 'original' CHECK (applies_to IN ('original')),
    extends_id          bigint REFERENCES adjustment(id),
    origin              text COLLATE "C" NOT NULL CHECK (origin IN ('camlib', 'apple')),
    sidecar_resource_id bigint REFERENCES resource(id) ON DELETE SET NULL,
    created_at          text COLLATE "C" NOT NULL
);
CREATE INDEX adjustment_by_asset ON adjustment(asset_id, id);

CREATE TABLE adjustment_render (
    adjustment_id bigint NOT NULL REFERENCES adjustment(id) ON DELETE CASCADE,
    resource_id   bigint NOT NULL REFERENCES resource(id) ON DELETE CASCADE,
    PRIMARY KEY (adjustment_id, resource_id)
);
CREATE INDEX adjustment_render_by_resource ON adjustment_render(resource_id, adjustment_id);

CREATE TABLE asset_version (
    asset_id              bigint PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    current_adjustment_id bigint REFERENCES adjustment(id),
    changed_at            text COLLATE "C" NOT NULL
);

CREATE TABLE preference (
    key        text COLLATE "C" PRIMARY KEY,
    value      text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
);

CREATE TABLE aux_image (
    id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    asset_id    bigint NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    resource_id bigint NOT NULL REFERENCES resource(id) ON DELETE CASCADE,
    type        text COLLATE "C" NOT NULL CHECK (type IN ('depth', 'disparity', 'portraitEffectsMatte', 'skinMatte', 'hairMatte',
                                                        'teethMatte', 'glassesMatte', 'skyMatte', 'hdrGainMap', 'other')),
    urn         text COLLATE "C",
    source      text COLLATE "C" NOT NULL,
    width       integer,
    height      integer,
    bit_depth   integer,
    channels    integer,
    path        text COLLATE "C" UNIQUE,
    sha256      text COLLATE "C" CHECK (sha256 IS NULL OR length(sha256) = 64),
    bytes       bigint,
    encoding    json,
    problem     text COLLATE "C",
    added_at    text COLLATE "C" NOT NULL,
    UNIQUE (resource_id, source),
    CHECK ((sha256 IS NULL) = (bytes IS NULL)),
    CHECK (sha256 IS NULL OR path IS NOT NULL)
);
CREATE INDEX aux_image_by_asset ON aux_image(asset_id, type);
CREATE INDEX aux_image_by_type ON aux_image(type, asset_id);

CREATE TABLE camera (
    id    bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    make  text COLLATE "C" NOT NULL,
    model text COLLATE "C" NOT NULL,
    UNIQUE (make, model)
);

CREATE TABLE trashed_asset (
    asset_id   bigint PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    trashed_at text COLLATE "C" NOT NULL
);
CREATE INDEX trashed_asset_by_time ON trashed_asset(trashed_at, asset_id);

CREATE TABLE file_removal (
    path      text COLLATE "C" PRIMARY KEY,
    queued_at text COLLATE "C" NOT NULL
);

CREATE TABLE favorite (
    asset_id bigint PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    added_at text COLLATE "C" NOT NULL
);

CREATE TABLE album (
    id             bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name           text COLLATE "C" NOT NULL UNIQUE,
    cover_asset_id bigint REFERENCES asset(id) ON DELETE SET NULL,
    created_at     text COLLATE "C" NOT NULL
);

CREATE TABLE album_asset (
    album_id bigint NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    asset_id bigint NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    position bigint NOT NULL,
    added_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (album_id, asset_id)
);
CREATE INDEX album_asset_order ON album_asset(album_id, position);
CREATE INDEX album_asset_by_asset ON album_asset(asset_id);

CREATE TABLE keyword (
    id   bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name text COLLATE "C" NOT NULL UNIQUE
);

CREATE TABLE asset_keyword (
    keyword_id bigint NOT NULL REFERENCES keyword(id) ON DELETE CASCADE,
    asset_id   bigint NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    PRIMARY KEY (keyword_id, asset_id)
);
CREATE INDEX asset_keyword_by_asset ON asset_keyword(asset_id);

-- The job queue (0019, 0021). Claimed with FOR UPDATE SKIP LOCKED: several workers on
-- several machines take different jobs without waiting for each other.
CREATE TABLE job (
    id           bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    kind         text COLLATE "C" NOT NULL CHECK (kind IN ('thumbnail', 'preview', 'proxy', 'auxPNG', 'render', 'repair')),
    asset_id     bigint NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    resource_id  bigint REFERENCES resource(id) ON DELETE CASCADE,
    arguments    json NOT NULL DEFAULT '{}',
    dedupe_key   text COLLATE "C",
    batch        text COLLATE "C",
    state        text COLLATE "C" NOT NULL DEFAULT 'available'
                 CHECK (state IN ('available', 'running', 'done', 'failed', 'cancelled')),
    priority     integer NOT NULL DEFAULT 0,
    run_after    text COLLATE "C" NOT NULL,
    attempt      integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    host         text COLLATE "C",
    pid          integer,
    lease_token  text COLLATE "C" UNIQUE,
    lease_until  text COLLATE "C",
    progress     json,
    last_error   text COLLATE "C",
    result       json,
    created_at   text COLLATE "C" NOT NULL,
    started_at   text COLLATE "C",
    finished_at  text COLLATE "C",
    CHECK ((state = 'running') = (lease_token IS NOT NULL)),
    CHECK ((state = 'running') = (lease_until IS NOT NULL))
);
CREATE INDEX job_available ON job(priority, run_after, id) WHERE state = 'available';
-- A worker's claim reads each of its kinds' first waiting jobs from here (see JobRecord+Postgres).
CREATE INDEX job_claim ON job(kind, priority, run_after, id) WHERE state = 'available';
CREATE INDEX job_running ON job(lease_until) WHERE state = 'running';
CREATE UNIQUE INDEX job_waiting_once ON job(dedupe_key) WHERE state = 'available' AND dedupe_key IS NOT NULL;
CREATE INDEX job_by_batch ON job(batch, state) WHERE batch IS NOT NULL;
CREATE INDEX job_by_asset ON job(asset_id, kind);
CREATE INDEX job_by_state ON job(state, kind);

CREATE TABLE worker (
    id           bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    host         text COLLATE "C" NOT NULL,
    pid          integer NOT NULL,
    kinds        text COLLATE "C" NOT NULL,
    job_id       bigint REFERENCES job(id) ON DELETE SET NULL,
    started_at   text COLLATE "C" NOT NULL,
    heartbeat_at text COLLATE "C" NOT NULL,
    UNIQUE (host, pid)
);

-- Views: the same names and columns as SQLite's.

CREATE VIEW asset_overview AS
SELECT a.id,
       a.kind,
       COALESCE(pm.captured_at, vm.captured_at)               AS captured_at,
       COALESCE(pm.make, vm.make)                             AS make,
       COALESCE(pm.model, vm.model)                           AS model,
       COALESCE(pm.lens_model, vm.lens_model)                 AS lens_model,
       COALESCE(pm.width, vm.width)                           AS width,
       COALESCE(pm.height, vm.height)                         AS height,
       COALESCE(pm.orientation, vm.orientation)               AS orientation,
       vm.duration                                            AS duration,
       vm.video_codec                                         AS video_codec,
       vm.audio_codec                                         AS audio_codec,
       COALESCE(pm.latitude, vm.latitude)                     AS latitude,
       COALESCE(pm.longitude, vm.longitude)                   AS longitude,
       CASE WHEN pm.latitude IS NOT NULL THEN pm.altitude ELSE vm.altitude END AS altitude,
       COALESCE(pm.content_identifier, vm.content_identifier) AS content_identifier,
       pr.rule                                                AS paired_by,
       pr.confidence                                          AS pairing_confidence,
       COALESCE(p.original_name, v.original_name)             AS original_name,
       p.path                                                 AS photo_path,
       v.path                                                 AS video_path,
       a.imported_at
FROM asset a
LEFT JOIN resource p  ON p.asset_id = a.id AND p.role = 'photo'
LEFT JOIN metadata pm ON pm.resource_id = p.id
LEFT JOIN resource v  ON v.asset_id = a.id AND v.role IN ('pairedVideo', 'video')
LEFT JOIN metadata vm ON vm.resource_id = v.id
LEFT JOIN pairing pr  ON pr.asset_id = a.id;

CREATE VIEW live_photo AS
SELECT pr.asset_id,
       pr.content_identifier,
       pr.rule        AS paired_by,
       pr.confidence,
       p.path         AS photo_path,
       v.path         AS video_path,
       vm.duration    AS video_duration
FROM pairing pr
JOIN resource p       ON p.id = pr.photo_resource_id
JOIN resource v       ON v.id = pr.video_resource_id
LEFT JOIN metadata vm ON vm.resource_id = v.id;

CREATE VIEW storage_by_role AS
SELECT role, count(*) AS files, sum(bytes)::bigint AS bytes
FROM resource
GROUP BY role;

CREATE VIEW motion_photo AS
SELECT v.asset_id,
       p.path        AS photo_path,
       v.path        AS movie_path,
       e."offset",
       e.length,
       e.declared_by,
       vm.duration   AS movie_duration
FROM embedded_movie e
JOIN resource v       ON v.id = e.resource_id
JOIN resource p       ON p.id = e.still_resource_id
LEFT JOIN metadata vm ON vm.resource_id = v.id;

CREATE VIEW adjustment_history AS
SELECT d.asset_id,
       d.id                  AS adjustment_id,
       d.format_identifier,
       d.format_version,
       d.origin,
       d.data,
       d.created_at,
       COALESCE((v.current_adjustment_id = d.id)::integer, 0) AS "current"
FROM adjustment d
LEFT JOIN asset_version v ON v.asset_id = d.asset_id
ORDER BY d.asset_id, d.id;

CREATE VIEW current_resource AS
SELECT r.*
FROM resource r
WHERE NOT EXISTS (SELECT 1 FROM adjustment_render ar WHERE ar.resource_id = r.id)
   OR EXISTS (SELECT 1
              FROM adjustment_render ar
              JOIN asset_version v ON v.current_adjustment_id = ar.adjustment_id
              WHERE ar.resource_id = r.id AND v.asset_id = r.asset_id);

CREATE VIEW aux_overview AS
SELECT x.asset_id,
       r.original_name                                   AS photo_name,
       x.type,
       x.urn,
       x.width,
       x.height,
       x.bit_depth,
       x.path,
       x.encoding ->> 'meaning'                          AS meaning,
       x.encoding ->> 'units'                            AS units,
       (x.encoding ->> 'floatMin')::double precision     AS float_min,
       (x.encoding ->> 'floatMax')::double precision     AS float_max,
       x.problem
FROM aux_image x
JOIN current_resource r ON r.id = x.resource_id;

CREATE VIEW unpaired_live_half AS
SELECT r.asset_id,
       r.role,
       r.path,
       m.content_identifier,
       m.still_image_time
FROM resource r
JOIN metadata m ON m.resource_id = r.id
JOIN asset a    ON a.id = r.asset_id
WHERE m.content_identifier IS NOT NULL
  AND a.kind = 'video'
  AND r.role = 'video';

CREATE VIEW assets_by_camera AS
SELECT make,
       model,
       count(*) AS assets,
       julian_iso(min(julianday(captured_at))) AS first_captured,
       julian_iso(max(julianday(captured_at))) AS last_captured
FROM asset_overview
GROUP BY make, model;

CREATE VIEW assets_with_depth AS
SELECT asset_id,
       string_agg(DISTINCT type, ',' ORDER BY type) AS types
FROM aux_overview
WHERE type IN ('depth', 'disparity')
GROUP BY asset_id;

CREATE VIEW album_overview AS
SELECT a.id,
       a.name,
       (SELECT count(*) FROM album_asset x
        WHERE x.album_id = a.id AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = x.asset_id)) AS assets,
       coalesce(
           (SELECT a.cover_asset_id WHERE NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = a.cover_asset_id)),
           (SELECT x.asset_id FROM album_asset x
            WHERE x.album_id = a.id AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = x.asset_id)
            ORDER BY x.position LIMIT 1)) AS cover_asset_id,
       a.created_at
FROM album a;

CREATE VIEW keyword_overview AS
SELECT k.id,
       k.name,
       (SELECT count(*) FROM asset_keyword x
        WHERE x.keyword_id = k.id AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = x.asset_id)) AS assets
FROM keyword k;

CREATE VIEW job_overview AS
SELECT kind, state, count(*) AS jobs, min(created_at) AS oldest, max(finished_at) AS latest_finished
FROM job GROUP BY kind, state;

-- The summary a listing reads (0008, 0010, 0013): one row per asset outside the trash.

CREATE VIEW asset_summary_every AS
SELECT o.id AS asset_id,
       o.kind,
       o.captured_at,
       julianday(o.captured_at) AS captured_julian,
       o.imported_at,
       (SELECT c.id FROM camera c WHERE c.make = coalesce(o.make, '') AND c.model = coalesce(o.model, '')
                                   AND (o.make IS NOT NULL OR o.model IS NOT NULL)) AS camera_id,
       ascii_lower(o.original_name) AS sort_name,
       o.paired_by,
       (SELECT ',' || string_agg(DISTINCT x.type, ',' ORDER BY x.type) || ','
        FROM aux_image x JOIN current_resource r ON r.id = x.resource_id
        WHERE x.asset_id = o.id) AS aux_types,
       EXISTS (SELECT 1 FROM asset_version v WHERE v.asset_id = o.id AND v.current_adjustment_id IS NOT NULL)::integer AS edited,
       o.duration,
       -- In the order SQLite's plan gives (its index of asset and role, then row id).
       (SELECT chr(10) || string_agg(ascii_lower(r.original_name), chr(10) ORDER BY r.role, r.id) || chr(10)
        FROM resource r WHERE r.asset_id = o.id AND r.original_name IS NOT NULL) AS names
FROM asset_overview o;

CREATE VIEW asset_summary_source AS
SELECT * FROM asset_summary_every e
WHERE NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = e.asset_id);

CREATE TABLE asset_summary (
    asset_id        bigint PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    kind            text COLLATE "C" NOT NULL,
    captured_at     text COLLATE "C",
    captured_julian double precision,
    imported_at     text COLLATE "C" NOT NULL,
    camera_id       bigint REFERENCES camera(id),
    sort_name       text COLLATE "C",
    paired_by       text COLLATE "C",
    aux_types       text COLLATE "C",
    edited          integer NOT NULL CHECK (edited IN (0, 1)),
    duration        double precision,
    names           text COLLATE "C"
);
CREATE INDEX asset_summary_by_kind ON asset_summary(kind);
CREATE INDEX asset_summary_by_camera ON asset_summary(camera_id) WHERE camera_id IS NOT NULL;
CREATE INDEX asset_summary_by_pairing ON asset_summary(paired_by) WHERE paired_by IS NOT NULL;
CREATE INDEX asset_summary_edited ON asset_summary(edited) WHERE edited = 1;
CREATE INDEX asset_summary_by_captured
    ON asset_summary(captured_julian, asset_id) INCLUDE (kind, camera_id, paired_by, edited, aux_types, imported_at, sort_name);
CREATE INDEX asset_summary_by_imported
    ON asset_summary(imported_at, asset_id) INCLUDE (captured_julian, kind, camera_id, paired_by, edited, aux_types);
CREATE INDEX asset_summary_by_name
    ON asset_summary(sort_name, asset_id) INCLUDE (captured_julian, kind, camera_id, paired_by, edited, aux_types);
CREATE INDEX asset_summary_by_captured_name ON asset_summary(captured_julian, sort_name, asset_id);
CREATE INDEX asset_summary_names ON asset_summary USING gin (names gin_trgm_ops);

CREATE VIEW trashed_summary AS
SELECT e.*, t.trashed_at
FROM trashed_asset t JOIN asset_summary_every e ON e.asset_id = t.asset_id;

-- Every file name of an asset with its summary's columns (0011): a name's range is read
-- here, in one index, without looking up the assets one by one.
CREATE TABLE asset_file_name (
    lower_name      text COLLATE "C" NOT NULL,
    resource_id     bigint NOT NULL,
    asset_id        bigint NOT NULL,
    kind            text COLLATE "C",
    captured_julian double precision,
    imported_at     text COLLATE "C",
    camera_id       bigint,
    sort_name       text COLLATE "C",
    paired_by       text COLLATE "C",
    aux_types       text COLLATE "C",
    edited          integer,
    PRIMARY KEY (lower_name, resource_id)
);
CREATE INDEX asset_file_name_by_asset ON asset_file_name(asset_id);

-- Rewrites an asset's summary row from its rows (SQLite: the asset_summary_rewrite
-- trigger), first naming its camera.
CREATE FUNCTION asset_summary_refresh(target bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO camera (make, model)
        SELECT coalesce(o.make, ''), coalesce(o.model, '') FROM asset_overview o
        WHERE o.id = target AND (o.make IS NOT NULL OR o.model IS NOT NULL)
        ON CONFLICT (make, model) DO NOTHING;
    DELETE FROM asset_summary WHERE asset_id = target;
    INSERT INTO asset_summary SELECT * FROM asset_summary_source WHERE asset_id = target;
END $$;

-- A row trigger of a table with an asset_id column (its name the trigger's argument):
-- the summary of the asset of the old row, and of the new one when it differs.
CREATE FUNCTION asset_summary_touch() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    before bigint;
    after bigint;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        before := (to_jsonb(OLD) ->> TG_ARGV[0])::bigint;
        PERFORM asset_summary_refresh(before);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        after := (to_jsonb(NEW) ->> TG_ARGV[0])::bigint;
        IF before IS DISTINCT FROM after THEN
            PERFORM asset_summary_refresh(after);
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION asset_summary_touch_metadata() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    target bigint;
BEGIN
    FOR target IN
        SELECT DISTINCT r.asset_id FROM resource r
        WHERE r.id IN (CASE WHEN TG_OP <> 'INSERT' THEN OLD.resource_id END, CASE WHEN TG_OP <> 'DELETE' THEN NEW.resource_id END)
    LOOP
        PERFORM asset_summary_refresh(target);
    END LOOP;
    RETURN NULL;
END $$;

CREATE FUNCTION asset_summary_touch_render() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    target bigint;
BEGIN
    FOR target IN
        SELECT DISTINCT d.asset_id FROM adjustment d
        WHERE d.id IN (CASE WHEN TG_OP <> 'INSERT' THEN OLD.adjustment_id END, CASE WHEN TG_OP <> 'DELETE' THEN NEW.adjustment_id END)
    LOOP
        PERFORM asset_summary_refresh(target);
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER asset_summary_asset_insert AFTER INSERT ON asset
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch('id');
CREATE TRIGGER asset_summary_asset_update AFTER UPDATE OF kind, imported_at ON asset
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch('id');
CREATE TRIGGER asset_summary_resource_insert AFTER INSERT ON resource
    FOR EACH ROW WHEN (NEW.role IN ('photo', 'pairedVideo', 'video') OR NEW.original_name IS NOT NULL)
    EXECUTE FUNCTION asset_summary_touch('asset_id');
CREATE TRIGGER asset_summary_resource_update AFTER UPDATE OF asset_id, role, original_name ON resource
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch('asset_id');
CREATE TRIGGER asset_summary_resource_delete AFTER DELETE ON resource
    FOR EACH ROW WHEN (OLD.role IN ('photo', 'pairedVideo', 'video') OR OLD.original_name IS NOT NULL)
    EXECUTE FUNCTION asset_summary_touch('asset_id');
CREATE TRIGGER asset_summary_metadata AFTER INSERT OR UPDATE OR DELETE ON metadata
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch_metadata();
CREATE TRIGGER asset_summary_pairing AFTER INSERT OR UPDATE OR DELETE ON pairing
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch('asset_id');
CREATE TRIGGER asset_summary_version AFTER INSERT OR UPDATE OR DELETE ON asset_version
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch('asset_id');
CREATE TRIGGER asset_summary_render AFTER INSERT OR DELETE ON adjustment_render
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch_render();
CREATE TRIGGER asset_summary_trash AFTER INSERT OR DELETE ON trashed_asset
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch('asset_id');
CREATE TRIGGER asset_summary_aux AFTER INSERT OR UPDATE OR DELETE ON aux_image
    FOR EACH ROW EXECUTE FUNCTION asset_summary_touch('asset_id');

-- resource.lower_name (0009), set before the row is written.
CREATE FUNCTION resource_lower_name() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.lower_name := ascii_lower(NEW.original_name);
    RETURN NEW;
END $$;
CREATE TRIGGER resource_lower_name BEFORE INSERT OR UPDATE OF original_name, lower_name ON resource
    FOR EACH ROW EXECUTE FUNCTION resource_lower_name();

-- asset_file_name (0011): kept from resource and asset_summary.
CREATE FUNCTION asset_file_name_from_resource() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.original_name IS NOT NULL THEN
        DELETE FROM asset_file_name WHERE lower_name = ascii_lower(OLD.original_name) AND resource_id = OLD.id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.original_name IS NOT NULL THEN
        INSERT INTO asset_file_name
        SELECT ascii_lower(NEW.original_name), NEW.id, NEW.asset_id,
               s.kind, s.captured_julian, s.imported_at, s.camera_id, s.sort_name, s.paired_by, s.aux_types, s.edited
        FROM (SELECT 1) AS one LEFT JOIN asset_summary s ON s.asset_id = NEW.asset_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER asset_file_name_resource AFTER INSERT OR DELETE OR UPDATE OF id, asset_id, original_name ON resource
    FOR EACH ROW EXECUTE FUNCTION asset_file_name_from_resource();

CREATE FUNCTION asset_file_name_from_summary() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE asset_file_name
        SET (kind, captured_julian, imported_at, camera_id, sort_name, paired_by, aux_types, edited) =
            (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
        WHERE asset_id = OLD.asset_id;
    ELSE
        UPDATE asset_file_name
        SET (kind, captured_julian, imported_at, camera_id, sort_name, paired_by, aux_types, edited) =
            (NEW.kind, NEW.captured_julian, NEW.imported_at, NEW.camera_id, NEW.sort_name, NEW.paired_by, NEW.aux_types, NEW.edited)
        WHERE asset_id = NEW.asset_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER asset_file_name_summary AFTER INSERT OR UPDATE OR DELETE ON asset_summary
    FOR EACH ROW EXECUTE FUNCTION asset_file_name_from_summary();
