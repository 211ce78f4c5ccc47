-- 0010_asset_summary_names
--
-- `camlib query --name PATTERN` without a look-up per asset. A listing that scans an
-- order (a pattern without a literal start such as `*3582*` or `*.mov`, or one matching
-- thousands of files) tested every asset it passed with `EXISTS (SELECT 1 FROM resource
-- ...)`, a search of the resource table per asset: `*3582*`, which matches 115 of a
-- million assets, read the whole catalog that way in 0.9 s of SQL. The summary now
-- carries the asset's file names, in the indexes a listing scans, so a scan tests them
-- where it reads; and a trigram index of them (FTS5) gives the few assets whose names
-- hold a rare run of three characters, so a rare pattern is not scanned for at all
-- (2 ms). The exact test on `resource` still follows, on the assets that pass.

-- The lower-case original names of the asset's files (every role that has one: the
-- still, the movie, sidecars, imported renders), each between newlines:
-- '\nimg_3582.heic\nimg_3582.mov\n'. NULL when no file has a name. A name matches a
-- pattern P when this matches '*\n' || P || '\n*'; the converse need not hold (a `*` in
-- P may span two names), so the test on `resource` stays, after this one.
ALTER TABLE asset_summary ADD COLUMN names TEXT;

DROP VIEW asset_summary_source;
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
       o.duration,
       (SELECT char(10) || group_concat(lower(r.original_name), char(10)) || char(10)
        FROM resource r WHERE r.asset_id = o.id AND r.original_name IS NOT NULL) AS names
FROM asset_overview o;

UPDATE asset_summary SET names =
    (SELECT char(10) || group_concat(lower(r.original_name), char(10)) || char(10)
     FROM resource r WHERE r.asset_id = asset_summary.asset_id AND r.original_name IS NOT NULL);

-- Every run of three characters in the names, with the assets holding it: a pattern's
-- rarest run names a few candidates (`MATCH '"358"'`), which the pattern then tests.
-- Its text is asset_summary's (external content), kept by the triggers below; positions
-- are not kept (detail=none: 30 MB at a million assets).
CREATE VIRTUAL TABLE asset_summary_names USING fts5(
    names, tokenize = 'trigram case_sensitive 1', content = 'asset_summary', content_rowid = 'asset_id', detail = 'none');
INSERT INTO asset_summary_names (asset_summary_names) VALUES ('rebuild');

CREATE TRIGGER asset_summary_names_insert AFTER INSERT ON asset_summary
WHEN NEW.names IS NOT NULL BEGIN
    INSERT INTO asset_summary_names (rowid, names) VALUES (NEW.asset_id, NEW.names);
END;
CREATE TRIGGER asset_summary_names_delete AFTER DELETE ON asset_summary
WHEN OLD.names IS NOT NULL BEGIN
    INSERT INTO asset_summary_names (asset_summary_names, rowid, names) VALUES ('delete', OLD.asset_id, OLD.names);
END;
CREATE TRIGGER asset_summary_names_update AFTER UPDATE OF asset_id, names ON asset_summary BEGIN
    INSERT INTO asset_summary_names (asset_summary_names, rowid, names)
        SELECT 'delete', OLD.asset_id, OLD.names WHERE OLD.names IS NOT NULL;
    INSERT INTO asset_summary_names (rowid, names) SELECT NEW.asset_id, NEW.names WHERE NEW.names IS NOT NULL;
END;

-- A named file of another role (a sidecar, an imported render) changes the names too;
-- 0008's triggers cover the still and the movie, and renaming or moving any file.
CREATE TRIGGER asset_summary_named_resource_insert AFTER INSERT ON resource
WHEN NEW.original_name IS NOT NULL AND NEW.role NOT IN ('photo', 'pairedVideo', 'video') BEGIN
    INSERT INTO asset_summary_refresh VALUES (NEW.asset_id);
END;
CREATE TRIGGER asset_summary_named_resource_delete AFTER DELETE ON resource
WHEN OLD.original_name IS NOT NULL AND OLD.role NOT IN ('photo', 'pairedVideo', 'video') BEGIN
    INSERT INTO asset_summary_refresh VALUES (OLD.asset_id);
END;

-- The indexes a listing scans carry the names, as they carry every other filter's column.
DROP INDEX asset_summary_by_captured;
CREATE INDEX asset_summary_by_captured
    ON asset_summary(captured_julian, asset_id, kind, camera_id, paired_by, edited, aux_types, imported_at, sort_name, names);
DROP INDEX asset_summary_by_imported;
CREATE INDEX asset_summary_by_imported
    ON asset_summary(imported_at, asset_id, captured_julian, kind, camera_id, paired_by, edited, aux_types, names);
DROP INDEX asset_summary_by_name;
CREATE INDEX asset_summary_by_name
    ON asset_summary(sort_name, asset_id, captured_julian, kind, camera_id, paired_by, edited, aux_types, names);
