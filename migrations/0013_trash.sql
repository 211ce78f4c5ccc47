-- 0013_trash
--
-- The trash, as Apple Photos' Recently Deleted: `camlib trash` moves an asset here,
-- `camlib restore` takes it back, `camlib trash --empty` deletes it for good. A trashed
-- asset keeps every row and file it had; it is only left out of listings. Emptying the
-- trash is the only way camlib ever deletes anything of a library.

-- The assets in the trash, since when.
CREATE TABLE trashed_asset (
    asset_id   INTEGER PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    trashed_at TEXT NOT NULL               -- UTC, ISO 8601
);
-- `camlib trash --empty --older-than 30d`: the oldest first.
CREATE INDEX trashed_asset_by_time ON trashed_asset(trashed_at, asset_id);

-- Files to delete from the library folder: emptying the trash deletes an asset's rows
-- and lists its files here in one transaction, then deletes the files and their rows
-- here. A crash between the two leaves the list, which the next `camlib trash --empty`
-- or `camlib repair` finishes; so a file is never deleted while the catalog names it,
-- and never forgotten once nothing does. Normally empty.
CREATE TABLE file_removal (
    path      TEXT PRIMARY KEY,            -- relative to the library folder
    queued_at TEXT NOT NULL                -- UTC
) WITHOUT ROWID;

-- asset_summary (0008) holds the assets that are not in the trash, so that every listing
-- (query, the gallery's pages, counts by year) leaves trashed assets out without a test
-- of its own. Its source view is split in two: what any asset's row would be
-- (`asset_summary_every`, 0010's asset_summary_source as it was), and the rows the
-- summary holds (`asset_summary_source`, the same without the trash). `trashed_summary`
-- gives the trashed assets' rows, for `camlib query --trashed`.
--
-- asset_file_name (0011) keeps a trashed asset's names with NULL summary columns (as it
-- does for any asset whose summary row is deleted): a listing that reads names there
-- tests `kind IS NOT NULL`.
DROP VIEW asset_summary_source;
CREATE VIEW asset_summary_every AS
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
       o.duration,
       (SELECT char(10) || group_concat(lower(r.original_name), char(10)) || char(10)
        FROM resource r WHERE r.asset_id = o.id AND r.original_name IS NOT NULL) AS names
FROM asset_overview o;

CREATE VIEW asset_summary_source AS
SELECT * FROM asset_summary_every e
WHERE NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = e.asset_id);

CREATE VIEW trashed_summary AS
SELECT e.*, t.trashed_at
FROM trashed_asset t JOIN asset_summary_every e ON e.asset_id = t.asset_id;

-- Trashing or restoring an asset rewrites its row (0008's trigger): gone, or back.
CREATE TRIGGER asset_summary_trash_insert AFTER INSERT ON trashed_asset BEGIN
    INSERT INTO asset_summary_refresh VALUES (NEW.asset_id);
END;
CREATE TRIGGER asset_summary_trash_delete AFTER DELETE ON trashed_asset BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
END;
