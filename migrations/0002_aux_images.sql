-- 0002_aux_images
--
-- Auxiliary images (depth, disparity, Portrait mattes, HDR gain maps, …) found in a
-- still, and the movies embedded in Motion Photos. Extracted files live under derived/
-- and can be rebuilt from the original; what the file says about them is kept here.

-- One auxiliary image of a still. `path` is the extracted PNG (8- or 16-bit, lossless,
-- in the photo's displayed orientation), NULL when camlib could not decode it; then
-- `problem` says why. `encoding` is JSON: how samples map to disparity or depth
-- (floatMin, floatMax, intMin, intMax, units, near, far, format, toMetres) and every
-- XMP property the file gives for the image (apdi:*, depthData:*, GDepth:*, hdrgm:*).
CREATE TABLE aux_image (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    asset_id    INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    resource_id INTEGER NOT NULL REFERENCES resource(id) ON DELETE CASCADE,  -- the still holding it
    type        TEXT NOT NULL CHECK (type IN ('depth', 'disparity', 'portraitEffectsMatte', 'skinMatte', 'hairMatte',
                                              'teethMatte', 'glassesMatte', 'skyMatte', 'hdrGainMap', 'other')),
    urn         TEXT,                          -- HEIF auxC type, when it has one
    source      TEXT NOT NULL,                 -- heif:item/49, mpf:2, xmp:GDepth, container:GainMap
    width       INTEGER,                       -- as displayed
    height      INTEGER,
    bit_depth   INTEGER,                       -- significant bits per sample
    channels    INTEGER,                       -- 1 gray, 3 RGB
    path        TEXT UNIQUE,                   -- relative to the library folder
    sha256      TEXT CHECK (sha256 IS NULL OR length(sha256) = 64),
    bytes       INTEGER,
    encoding    TEXT CHECK (encoding IS NULL OR json_valid(encoding)),
    problem     TEXT,
    added_at    TEXT NOT NULL,                 -- UTC
    UNIQUE (resource_id, source),
    CHECK ((path IS NULL) = (sha256 IS NULL))
);
CREATE INDEX aux_image_by_asset ON aux_image(asset_id, type);
CREATE INDEX aux_image_by_type ON aux_image(type);

-- A Motion Photo's movie is a derived pairedVideo; two stills may hold the same movie
-- (tools that assemble Motion Photos reuse sample clips), so the one-copy rule of 0001
-- now covers originals only.
DROP INDEX resource_unique_original;
CREATE UNIQUE INDEX resource_unique_original ON resource(sha256)
    WHERE role IN ('photo', 'pairedVideo', 'video') AND derived_from IS NULL;

-- Where a Motion Photo's movie sat inside its still. The movie itself is the asset's
-- `pairedVideo` resource (derived_from the still), a playable file under derived/.
CREATE TABLE embedded_movie (
    resource_id       INTEGER PRIMARY KEY REFERENCES resource(id) ON DELETE CASCADE,
    still_resource_id INTEGER NOT NULL UNIQUE REFERENCES resource(id) ON DELETE CASCADE,
    offset            INTEGER NOT NULL CHECK (offset >= 0),
    length            INTEGER NOT NULL CHECK (length > 0),
    declared_by       TEXT NOT NULL,           -- XMP Container:Directory, XMP MicroVideoOffset, ...
    note              TEXT                     -- when the declared position was wrong
);

-- Auxiliary images with their photo, and the numbers that turn depth data into metres.
CREATE VIEW aux_overview AS
SELECT x.asset_id,
       r.original_name                       AS photo_name,
       x.type,
       x.urn,
       x.width,
       x.height,
       x.bit_depth,
       x.path,
       json_extract(x.encoding, '$.meaning')  AS meaning,
       json_extract(x.encoding, '$.units')    AS units,
       json_extract(x.encoding, '$.floatMin') AS float_min,
       json_extract(x.encoding, '$.floatMax') AS float_max,
       x.problem
FROM aux_image x
JOIN resource r ON r.id = x.resource_id;

-- Motion Photos: the still, the extracted movie, and where the movie was found.
CREATE VIEW motion_photo AS
SELECT v.asset_id,
       p.path        AS photo_path,
       v.path        AS movie_path,
       e.offset,
       e.length,
       e.declared_by,
       vm.duration   AS movie_duration
FROM embedded_movie e
JOIN resource v       ON v.id = e.resource_id
JOIN resource p       ON p.id = e.still_resource_id
LEFT JOIN metadata vm ON vm.resource_id = v.id;
