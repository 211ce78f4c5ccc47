-- Auxiliary images' PNGs are made when first asked for (`camlib aux extract`, the
-- gallery, `camlib repair`), no longer on import: import records what the container says
-- of each image and the place under derived/aux/ its PNG will have. A row may now name
-- a path whose PNG is not made yet: `sha256` and `bytes` are NULL until it is, and are
-- set together. A row without a path is an image camlib could not decode (`problem`
-- says why), as before.
--
-- SQLite cannot change a table's CHECK constraints, so the table is made again with
-- 0002's columns and the new checks, its rows copied, and its indexes and triggers
-- (0002, 0008) made again. With legacy_alter_table the rename leaves the views that
-- read aux_image (aux_overview, asset_summary_every) as they are: they name the table,
-- which is the new one from then on.
CREATE TABLE aux_image_new (
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
    path        TEXT UNIQUE,                   -- relative to the library folder; its PNG is made on demand
    sha256      TEXT CHECK (sha256 IS NULL OR length(sha256) = 64),  -- of the PNG, once made
    bytes       INTEGER,
    encoding    TEXT CHECK (encoding IS NULL OR json_valid(encoding)),
    problem     TEXT,
    added_at    TEXT NOT NULL,                 -- UTC
    UNIQUE (resource_id, source),
    CHECK ((sha256 IS NULL) = (bytes IS NULL)),
    CHECK (sha256 IS NULL OR path IS NOT NULL)
);
-- (A PNG recorded with a hash but no size is taken as not made: made again when asked.)
INSERT INTO aux_image_new
SELECT id, asset_id, resource_id, type, urn, source, width, height, bit_depth, channels, path,
       CASE WHEN bytes IS NULL THEN NULL ELSE sha256 END, CASE WHEN sha256 IS NULL THEN NULL ELSE bytes END,
       encoding, problem, added_at
FROM aux_image;
DROP TABLE aux_image;
PRAGMA legacy_alter_table = ON;
ALTER TABLE aux_image_new RENAME TO aux_image;
PRAGMA legacy_alter_table = OFF;

CREATE INDEX aux_image_by_asset ON aux_image(asset_id, type);
CREATE INDEX aux_image_by_type ON aux_image(type, asset_id);

CREATE TRIGGER asset_summary_aux_insert AFTER INSERT ON aux_image BEGIN
    INSERT INTO asset_summary_refresh VALUES (NEW.asset_id);
END;
CREATE TRIGGER asset_summary_aux_update AFTER UPDATE ON aux_image BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
    INSERT INTO asset_summary_refresh SELECT NEW.asset_id WHERE NEW.asset_id <> OLD.asset_id;
END;
CREATE TRIGGER asset_summary_aux_delete AFTER DELETE ON aux_image BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
END;
