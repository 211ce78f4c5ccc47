-- 0011_asset_file_name
--
-- `camlib query --name 'IMG_35*'` read and sorted in one index. A listing that starts
-- from a name with a literal start took the matching files from resource_by_lower_name
-- (0009), then looked up each one's asset in the summary for its sort key and its other
-- filters: at a million assets, IMG_35* is 7,124 files of 5,338 assets, 2 ms to find in
-- the index and 13 ms more to look up. This table is that index with the asset's summary
-- columns beside each name, as 0008's indexes carry them beside each sort key, so such a
-- listing reads consecutive entries, tests and sorts them there (3 ms), as a date range
-- does in asset_summary_by_captured.
--
-- One row per file with an original name, whatever its role (the still, the movie,
-- sidecars, imported renders), as `--name` matches any of them. An asset with two
-- matching files appears twice; a listing skips the second.
CREATE TABLE asset_file_name (
    lower_name      TEXT NOT NULL,     -- lower(resource.original_name)
    resource_id     INTEGER NOT NULL,  -- resource.id
    asset_id        INTEGER NOT NULL,  -- resource.asset_id
    -- The asset's row of asset_summary, the columns a listing filters and sorts by:
    kind            TEXT,
    captured_julian REAL,
    imported_at     TEXT,
    camera_id       INTEGER,
    sort_name       TEXT,
    paired_by       TEXT,
    aux_types       TEXT,
    edited          INTEGER,
    PRIMARY KEY (lower_name, resource_id)
) WITHOUT ROWID;
-- For the summary's triggers below: an asset's rows, when its summary is rewritten.
CREATE INDEX asset_file_name_by_asset ON asset_file_name(asset_id);

INSERT INTO asset_file_name
SELECT lower(r.original_name), r.id, r.asset_id,
       s.kind, s.captured_julian, s.imported_at, s.camera_id, s.sort_name, s.paired_by, s.aux_types, s.edited
FROM resource r LEFT JOIN asset_summary s ON s.asset_id = r.asset_id
WHERE r.original_name IS NOT NULL;

-- A file named, renamed, moved to another asset or removed. (The summary's columns are
-- read as they are; should the summary be rewritten after this, its trigger brings them.)
CREATE TRIGGER asset_file_name_resource_insert AFTER INSERT ON resource
WHEN NEW.original_name IS NOT NULL BEGIN
    INSERT INTO asset_file_name
    SELECT lower(NEW.original_name), NEW.id, NEW.asset_id,
           s.kind, s.captured_julian, s.imported_at, s.camera_id, s.sort_name, s.paired_by, s.aux_types, s.edited
    FROM (SELECT 1) LEFT JOIN asset_summary s ON s.asset_id = NEW.asset_id;
END;
CREATE TRIGGER asset_file_name_resource_update AFTER UPDATE OF id, asset_id, original_name ON resource BEGIN
    DELETE FROM asset_file_name WHERE lower_name = lower(OLD.original_name) AND resource_id = OLD.id;
    INSERT INTO asset_file_name
    SELECT lower(NEW.original_name), NEW.id, NEW.asset_id,
           s.kind, s.captured_julian, s.imported_at, s.camera_id, s.sort_name, s.paired_by, s.aux_types, s.edited
    FROM (SELECT 1) LEFT JOIN asset_summary s ON s.asset_id = NEW.asset_id
    WHERE NEW.original_name IS NOT NULL;
END;
CREATE TRIGGER asset_file_name_resource_delete AFTER DELETE ON resource
WHEN OLD.original_name IS NOT NULL BEGIN
    DELETE FROM asset_file_name WHERE lower_name = lower(OLD.original_name) AND resource_id = OLD.id;
END;

-- The asset's summary written (0008 rewrites it by deleting and inserting) or changed.
CREATE TRIGGER asset_file_name_summary_insert AFTER INSERT ON asset_summary BEGIN
    UPDATE asset_file_name
    SET (kind, captured_julian, imported_at, camera_id, sort_name, paired_by, aux_types, edited) =
        (NEW.kind, NEW.captured_julian, NEW.imported_at, NEW.camera_id, NEW.sort_name, NEW.paired_by, NEW.aux_types, NEW.edited)
    WHERE asset_id = NEW.asset_id;
END;
CREATE TRIGGER asset_file_name_summary_update AFTER UPDATE ON asset_summary BEGIN
    UPDATE asset_file_name
    SET (kind, captured_julian, imported_at, camera_id, sort_name, paired_by, aux_types, edited) =
        (NEW.kind, NEW.captured_julian, NEW.imported_at, NEW.camera_id, NEW.sort_name, NEW.paired_by, NEW.aux_types, NEW.edited)
    WHERE asset_id = NEW.asset_id;
END;
CREATE TRIGGER asset_file_name_summary_delete AFTER DELETE ON asset_summary BEGIN
    UPDATE asset_file_name
    SET (kind, captured_julian, imported_at, camera_id, sort_name, paired_by, aux_types, edited) =
        (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
    WHERE asset_id = OLD.asset_id;
END;

-- The names' range is read here now; 0009's index is no longer used by any listing.
DROP INDEX resource_by_lower_name;
