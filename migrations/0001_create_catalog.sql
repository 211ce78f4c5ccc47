-- 0001_create_catalog
--
-- The catalog of a camlib library: the assets a user sees, the files that make them
-- up, what each file says about itself, and how Live Photo stills and movies were
-- paired. Paths are relative to the library folder; times are ISO 8601 text.
-- This file is part of camlib's public interface: it is never edited once released;
-- later changes come as new migrations.

-- What a user sees as one item: a photo, a Live Photo (still + movie), a video, or a
-- motion photo (a still with a movie inside it).
CREATE TABLE asset (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT NOT NULL CHECK (kind IN ('photo', 'live', 'video', 'motion')),
    imported_at TEXT NOT NULL                  -- UTC, when the asset entered the library
);

-- A file of an asset. Originals (photo, pairedVideo, video) and Apple's sidecars and
-- rendered edits are copied in byte for byte, made read-only and never modified.
-- Thumbnails are derived (under derived/) and can be rebuilt from the originals.
CREATE TABLE resource (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    asset_id      INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    role          TEXT NOT NULL CHECK (role IN ('photo', 'pairedVideo', 'video', 'thumbnail',
                                                'adjustmentSidecar', 'renderedPhoto', 'renderedVideo')),
    path          TEXT NOT NULL UNIQUE,        -- relative to the library folder
    sha256        TEXT NOT NULL CHECK (length(sha256) = 64),
    bytes         INTEGER NOT NULL CHECK (bytes >= 0),
    mime          TEXT NOT NULL,
    derived_from  INTEGER REFERENCES resource(id) ON DELETE CASCADE,  -- what a thumbnail shows
    original_name TEXT,                        -- file name it was imported under (NULL if derived)
    source_dir    TEXT,                        -- absolute folder it was imported from
    added_at      TEXT NOT NULL                -- UTC
);
-- One copy of each original in the whole library: duplicates are refused by sha256.
CREATE UNIQUE INDEX resource_unique_original ON resource(sha256)
    WHERE role IN ('photo', 'pairedVideo', 'video');
-- An asset has at most one still and one movie.
CREATE UNIQUE INDEX resource_one_still ON resource(asset_id) WHERE role = 'photo';
CREATE UNIQUE INDEX resource_one_movie ON resource(asset_id) WHERE role IN ('pairedVideo', 'video');
-- One thumbnail per file shown.
CREATE UNIQUE INDEX resource_one_thumbnail ON resource(derived_from) WHERE role = 'thumbnail';
-- An asset does not hold the same sidecar or render twice.
CREATE UNIQUE INDEX resource_unique_attachment ON resource(asset_id, role, sha256)
    WHERE role IN ('adjustmentSidecar', 'renderedPhoto', 'renderedVideo');
CREATE INDEX resource_by_asset ON resource(asset_id, role);
CREATE INDEX resource_by_source ON resource(source_dir);
CREATE INDEX resource_by_sha256 ON resource(sha256);

-- What a photo or movie file says about itself (EXIF, HEIF item properties, QuickTime
-- metadata), as read on import.
CREATE TABLE metadata (
    resource_id            INTEGER PRIMARY KEY REFERENCES resource(id) ON DELETE CASCADE,
    format                 TEXT NOT NULL,      -- jpeg, png, heif, avif, quicktime, mp4
    captured_at            TEXT,               -- local time as recorded, with offset when known
    utc_offset_minutes     INTEGER,            -- minutes east of UTC; NULL when the file does not say
    make                   TEXT,
    model                  TEXT,
    software               TEXT,
    lens_make              TEXT,
    lens_model             TEXT,
    latitude               REAL,               -- WGS 84 degrees, north positive
    longitude              REAL,               -- east positive
    altitude               REAL,               -- metres above sea level
    width                  INTEGER,            -- as displayed: after EXIF orientation, irot/imir/clap
    height                 INTEGER,            --   or the movie's track matrix
    orientation            INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
    duration               REAL,               -- seconds, for movies
    video_codec            TEXT,               -- FFmpeg codec name: hevc, h264, ...
    audio_codec            TEXT,
    frame_rate             REAL,
    content_identifier     TEXT,               -- Apple MakerNote 0x0011 / com.apple.quicktime.content.identifier
    live_photo_video_index INTEGER,            -- Apple MakerNote 0x0017
    warnings               TEXT                -- what could not be read, one line each
);
CREATE INDEX metadata_by_content_identifier ON metadata(content_identifier)
    WHERE content_identifier IS NOT NULL;

-- How a Live Photo's still and movie were found to belong together.
--   rule 'contentIdentifier': the still's MakerNote 0x0011 equals the movie's
--       com.apple.quicktime.content.identifier (confidence 1).
--   rule 'stem': neither file has an identifier; same folder, same name stem, a short
--       movie, capture times within a few seconds (confidence below 1).
CREATE TABLE pairing (
    asset_id           INTEGER PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    photo_resource_id  INTEGER NOT NULL UNIQUE REFERENCES resource(id) ON DELETE CASCADE,
    video_resource_id  INTEGER NOT NULL UNIQUE REFERENCES resource(id) ON DELETE CASCADE,
    rule               TEXT NOT NULL CHECK (rule IN ('contentIdentifier', 'stem')),
    content_identifier TEXT,
    confidence         REAL NOT NULL CHECK (confidence > 0 AND confidence <= 1),
    paired_at          TEXT NOT NULL           -- UTC
);

-- Views for people who query the catalog with sqlite3. Examples are in README.md.

-- One row per asset with the facts most questions need. A Live Photo's facts come
-- from its still, and from its movie where the still has none.
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

-- Live Photos: still and movie side by side, with the rule that paired them.
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

-- Half Live Photos: a still or a movie that carries a content identifier whose partner
-- is not (yet) in the library. Importing the partner later pairs them.
CREATE VIEW unpaired_live_half AS
SELECT r.asset_id,
       r.role,
       r.path,
       m.content_identifier
FROM resource r
JOIN metadata m ON m.resource_id = r.id
JOIN asset a    ON a.id = r.asset_id
WHERE m.content_identifier IS NOT NULL
  AND a.kind IN ('photo', 'video');

-- How many files and bytes each role takes.
CREATE VIEW storage_by_role AS
SELECT role, count(*) AS files, sum(bytes) AS bytes
FROM resource
GROUP BY role;

-- Assets per camera.
CREATE VIEW assets_by_camera AS
SELECT make, model, count(*) AS assets, min(captured_at) AS first_captured, max(captured_at) AS last_captured
FROM asset_overview
GROUP BY make, model;
