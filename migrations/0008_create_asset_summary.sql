-- 0008_create_asset_summary
--
-- One row per asset with what lists are filtered and ordered by, so that a page of
-- `camlib query` or of the gallery reads an index instead of the whole catalog. Each
-- row is derived from the tables above: triggers rewrite an asset's row whenever one of
-- its rows changes, from the view `asset_summary_source`, so the two always agree
-- (`SELECT * FROM asset_summary EXCEPT SELECT * FROM asset_summary_source` is empty;
-- `INSERT INTO asset_summary_refresh VALUES (ID)` rewrites asset ID's row by hand).
-- Like derived/, it holds nothing that cannot be computed again.

-- Each distinct camera (make and model, '' where the file gives none) any asset was
-- taken with: a few hundred rows however large the library, so `--make`/`--model`
-- text searches look here first and then filter by id.
CREATE TABLE camera (
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    make  TEXT NOT NULL,
    model TEXT NOT NULL,
    UNIQUE (make, model)
);

CREATE TABLE asset_summary (
    asset_id        INTEGER PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    captured_at     TEXT,      -- as asset_overview: the still's, else the movie's
    captured_julian REAL,      -- julianday(captured_at): the moment (UTC) as a Julian day, for order and date ranges
    imported_at     TEXT NOT NULL,
    camera_id       INTEGER REFERENCES camera(id),  -- NULL when the file names no camera
    sort_name       TEXT,      -- lower(original_name) of the still, else the movie
    paired_by       TEXT,      -- pairing.rule of a Live Photo
    aux_types       TEXT,      -- ',depth,hdrGainMap,': auxiliary image types of the current version, NULL for none
    edited          INTEGER NOT NULL CHECK (edited IN (0, 1)),  -- an adjustment is the current version
    duration        REAL       -- seconds, of the movie
);

-- What asset_summary holds for each asset, computed from the tables.
CREATE VIEW asset_summary_source AS
SELECT o.id AS asset_id,
       o.kind,
       o.captured_at,
       julianday(o.captured_at) AS captured_julian,
       o.imported_at,
       (SELECT c.id FROM camera c WHERE c.make = coalesce(o.make, '') AND c.model = coalesce(o.model, '')
                                   AND (o.make IS NOT NULL OR o.model IS NOT NULL)) AS camera_id,
       lower(o.original_name) AS sort_name,
       o.paired_by,
       (SELECT ',' || group_concat(type, ',') || ','
        FROM (SELECT DISTINCT x.type FROM aux_image x JOIN current_resource r ON r.id = x.resource_id
              WHERE x.asset_id = o.id ORDER BY x.type)) AS aux_types,
       EXISTS (SELECT 1 FROM asset_version v WHERE v.asset_id = o.id AND v.current_adjustment_id IS NOT NULL) AS edited,
       o.duration
FROM asset_overview o;

-- Order and page by: capture time (the default and the gallery's), import time, name.
-- Each also carries the columns filters test, so a filtered page never leaves its index;
-- capture time's carries the other two keys, so a date range sorts in the index.
CREATE INDEX asset_summary_by_captured
    ON asset_summary(captured_julian, asset_id, kind, camera_id, paired_by, edited, aux_types, imported_at, sort_name);
CREATE INDEX asset_summary_by_imported
    ON asset_summary(imported_at, asset_id, captured_julian, kind, camera_id, paired_by, edited, aux_types);
CREATE INDEX asset_summary_by_name
    ON asset_summary(sort_name, asset_id, captured_julian, kind, camera_id, paired_by, edited, aux_types);
-- Filters that may match few assets start from these instead.
CREATE INDEX asset_summary_by_kind ON asset_summary(kind);
CREATE INDEX asset_summary_by_camera ON asset_summary(camera_id) WHERE camera_id IS NOT NULL;
CREATE INDEX asset_summary_by_pairing ON asset_summary(paired_by) WHERE paired_by IS NOT NULL;
CREATE INDEX asset_summary_edited ON asset_summary(edited) WHERE edited = 1;
-- `--has TYPE`: asset ids by auxiliary image type in the index itself (0002's index held
-- the type only, so counting candidates read every image's row for its asset id).
DROP INDEX aux_image_by_type;
CREATE INDEX aux_image_by_type ON aux_image(type, asset_id);
-- `--name IMG_35*`: original names by their lower-case text, for patterns with a literal start.
CREATE INDEX resource_by_lower_name ON resource(lower(original_name)) WHERE original_name IS NOT NULL;

-- The assets there are now.
INSERT OR IGNORE INTO camera (make, model)
SELECT DISTINCT coalesce(make, ''), coalesce(model, '') FROM asset_overview WHERE make IS NOT NULL OR model IS NOT NULL;
INSERT INTO asset_summary SELECT * FROM asset_summary_source;

-- From now on, every change that can alter an asset's row asks for it to be rewritten
-- by inserting the asset's id here; the table stays empty.
CREATE TABLE asset_summary_refresh (asset_id INTEGER NOT NULL);

-- (A camera not listed yet is added with NOT EXISTS, not OR IGNORE: inside a trigger the
-- conflict policy of the statement that fired it overrides the trigger's own.)
CREATE TRIGGER asset_summary_rewrite AFTER INSERT ON asset_summary_refresh BEGIN
    INSERT INTO camera (make, model)
        SELECT coalesce(o.make, ''), coalesce(o.model, '') FROM asset_overview o
        WHERE o.id = NEW.asset_id AND (o.make IS NOT NULL OR o.model IS NOT NULL)
          AND NOT EXISTS (SELECT 1 FROM camera c WHERE c.make = coalesce(o.make, '') AND c.model = coalesce(o.model, ''));
    DELETE FROM asset_summary WHERE asset_id = NEW.asset_id;
    INSERT INTO asset_summary SELECT * FROM asset_summary_source WHERE asset_id = NEW.asset_id;
    DELETE FROM asset_summary_refresh WHERE rowid = NEW.rowid;
END;

-- The asset itself: its kind, its import time.
CREATE TRIGGER asset_summary_asset_insert AFTER INSERT ON asset BEGIN
    INSERT INTO asset_summary_refresh VALUES (NEW.id);
END;
CREATE TRIGGER asset_summary_asset_update AFTER UPDATE OF kind, imported_at ON asset BEGIN
    INSERT INTO asset_summary_refresh VALUES (NEW.id);
END;
CREATE TRIGGER asset_summary_asset_delete AFTER DELETE ON asset BEGIN
    DELETE FROM asset_summary WHERE asset_id = OLD.id;
END;

-- A still's or a movie's file: its name, and which metadata row counts.
CREATE TRIGGER asset_summary_resource_insert AFTER INSERT ON resource
WHEN NEW.role IN ('photo', 'pairedVideo', 'video') BEGIN
    INSERT INTO asset_summary_refresh VALUES (NEW.asset_id);
END;
CREATE TRIGGER asset_summary_resource_update AFTER UPDATE OF asset_id, role, original_name ON resource BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
    INSERT INTO asset_summary_refresh SELECT NEW.asset_id WHERE NEW.asset_id <> OLD.asset_id;
END;
CREATE TRIGGER asset_summary_resource_delete AFTER DELETE ON resource
WHEN OLD.role IN ('photo', 'pairedVideo', 'video') BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
END;

-- Capture time, camera, duration.
CREATE TRIGGER asset_summary_metadata_insert AFTER INSERT ON metadata BEGIN
    INSERT INTO asset_summary_refresh SELECT asset_id FROM resource WHERE id = NEW.resource_id;
END;
CREATE TRIGGER asset_summary_metadata_update AFTER UPDATE ON metadata BEGIN
    INSERT INTO asset_summary_refresh SELECT DISTINCT asset_id FROM resource WHERE id IN (OLD.resource_id, NEW.resource_id);
END;
CREATE TRIGGER asset_summary_metadata_delete AFTER DELETE ON metadata BEGIN
    INSERT INTO asset_summary_refresh SELECT asset_id FROM resource WHERE id = OLD.resource_id;
END;

-- Live Photo pairing.
CREATE TRIGGER asset_summary_pairing_insert AFTER INSERT ON pairing BEGIN
    INSERT INTO asset_summary_refresh VALUES (NEW.asset_id);
END;
CREATE TRIGGER asset_summary_pairing_update AFTER UPDATE ON pairing BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
    INSERT INTO asset_summary_refresh SELECT NEW.asset_id WHERE NEW.asset_id <> OLD.asset_id;
END;
CREATE TRIGGER asset_summary_pairing_delete AFTER DELETE ON pairing BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
END;

-- Auxiliary images.
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

-- The current version: whether it is an edit, and which renders' aux images count.
CREATE TRIGGER asset_summary_version_insert AFTER INSERT ON asset_version BEGIN
    INSERT INTO asset_summary_refresh VALUES (NEW.asset_id);
END;
CREATE TRIGGER asset_summary_version_update AFTER UPDATE ON asset_version BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
    INSERT INTO asset_summary_refresh SELECT NEW.asset_id WHERE NEW.asset_id <> OLD.asset_id;
END;
CREATE TRIGGER asset_summary_version_delete AFTER DELETE ON asset_version BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
END;
CREATE TRIGGER asset_summary_render_insert AFTER INSERT ON adjustment_render BEGIN
    INSERT INTO asset_summary_refresh SELECT asset_id FROM adjustment WHERE id = NEW.adjustment_id;
END;
CREATE TRIGGER asset_summary_render_delete AFTER DELETE ON adjustment_render BEGIN
    INSERT INTO asset_summary_refresh SELECT asset_id FROM adjustment WHERE id = OLD.adjustment_id;
END;
