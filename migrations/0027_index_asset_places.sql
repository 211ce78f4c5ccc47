-- 0027_index_asset_places
--
-- Each asset's places: (asset, place) once for every place one of its stills or movies
-- was named after (0025), kept by triggers as files are named, added, moved between
-- assets and removed. `--place`, `--country` and the search box test an asset's places
-- here with one lookup, and start from a place's assets in `asset_place_by_place`
-- alone. Through `metadata.place_id` each asset tested cost a lookup of its files and
-- of each file's metadata, and a place's assets a lookup of each file's resource row:
-- 28 ms and 26 ms for a region's search at a million assets (docs/performance.md).
CREATE TABLE asset_place (
    asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    place_id INTEGER NOT NULL REFERENCES place(id),
    PRIMARY KEY (asset_id, place_id)
) WITHOUT ROWID;
CREATE INDEX asset_place_by_place ON asset_place(place_id, asset_id);

INSERT INTO asset_place
SELECT DISTINCT r.asset_id, m.place_id FROM metadata m JOIN resource r ON r.id = m.resource_id
WHERE m.place_id IS NOT NULL AND r.role IN ('photo', 'pairedVideo', 'video');

-- `INSERT INTO asset_place_refresh VALUES (ID)` makes asset ID's rows again, from its files.
CREATE TABLE asset_place_refresh (asset_id INTEGER NOT NULL);
CREATE TRIGGER asset_place_rewrite AFTER INSERT ON asset_place_refresh BEGIN
    DELETE FROM asset_place WHERE asset_id = NEW.asset_id;
    INSERT INTO asset_place
    SELECT DISTINCT r.asset_id, m.place_id FROM resource r JOIN metadata m ON m.resource_id = r.id
    WHERE r.asset_id = NEW.asset_id AND m.place_id IS NOT NULL AND r.role IN ('photo', 'pairedVideo', 'video');
    DELETE FROM asset_place_refresh WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER asset_place_metadata_insert AFTER INSERT ON metadata WHEN NEW.place_id IS NOT NULL BEGIN
    INSERT INTO asset_place_refresh SELECT asset_id FROM resource WHERE id = NEW.resource_id;
END;
CREATE TRIGGER asset_place_metadata_update AFTER UPDATE OF resource_id, place_id ON metadata BEGIN
    INSERT INTO asset_place_refresh SELECT DISTINCT asset_id FROM resource WHERE id IN (OLD.resource_id, NEW.resource_id);
END;
CREATE TRIGGER asset_place_metadata_delete AFTER DELETE ON metadata WHEN OLD.place_id IS NOT NULL BEGIN
    INSERT INTO asset_place_refresh SELECT asset_id FROM resource WHERE id = OLD.resource_id;
END;
-- A file removed (its metadata goes with it, after the file's row) or moved to another asset.
CREATE TRIGGER asset_place_resource_delete AFTER DELETE ON resource BEGIN
    INSERT INTO asset_place_refresh SELECT OLD.asset_id WHERE EXISTS (SELECT 1 FROM asset_place WHERE asset_id = OLD.asset_id);
END;
CREATE TRIGGER asset_place_resource_update AFTER UPDATE OF asset_id, role ON resource BEGIN
    INSERT INTO asset_place_refresh VALUES (OLD.asset_id);
    INSERT INTO asset_place_refresh SELECT NEW.asset_id WHERE NEW.asset_id <> OLD.asset_id;
END;
