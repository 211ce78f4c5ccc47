-- 0027_index_asset_places (PostgreSQL)
--
-- The twin of migrations/0027: each asset's places, kept by triggers, for `--place`,
-- `--country` and the search box.
CREATE TABLE asset_place (
    asset_id bigint NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    place_id bigint NOT NULL REFERENCES place(id),
    PRIMARY KEY (asset_id, place_id)
);
CREATE INDEX asset_place_by_place ON asset_place(place_id, asset_id);

INSERT INTO asset_place
SELECT DISTINCT r.asset_id, m.place_id FROM metadata m JOIN resource r ON r.id = m.resource_id
WHERE m.place_id IS NOT NULL AND r.role IN ('photo', 'pairedVideo', 'video');

-- Asset `target`'s rows again, from its files.
CREATE FUNCTION asset_place_refresh(target bigint) RETURNS void
LANGUAGE sql AS $$
    DELETE FROM asset_place WHERE asset_id = target;
    INSERT INTO asset_place
    SELECT DISTINCT r.asset_id, m.place_id FROM resource r JOIN metadata m ON m.resource_id = r.id
    WHERE r.asset_id = target AND m.place_id IS NOT NULL AND r.role IN ('photo', 'pairedVideo', 'video')
    ON CONFLICT DO NOTHING;
$$;

CREATE FUNCTION asset_place_touch_metadata() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    target bigint;
BEGIN
    FOR target IN
        SELECT DISTINCT r.asset_id FROM resource r
        WHERE r.id IN (CASE WHEN TG_OP <> 'INSERT' THEN OLD.resource_id END, CASE WHEN TG_OP <> 'DELETE' THEN NEW.resource_id END)
    LOOP
        PERFORM asset_place_refresh(target);
    END LOOP;
    RETURN NULL;
END $$;
CREATE TRIGGER asset_place_metadata_insert AFTER INSERT ON metadata
    FOR EACH ROW WHEN (NEW.place_id IS NOT NULL) EXECUTE FUNCTION asset_place_touch_metadata();
CREATE TRIGGER asset_place_metadata_update AFTER UPDATE OF resource_id, place_id ON metadata
    FOR EACH ROW EXECUTE FUNCTION asset_place_touch_metadata();
CREATE TRIGGER asset_place_metadata_delete AFTER DELETE ON metadata
    FOR EACH ROW WHEN (OLD.place_id IS NOT NULL) EXECUTE FUNCTION asset_place_touch_metadata();

-- A file removed or moved to another asset.
CREATE FUNCTION asset_place_touch_resource() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM asset_place_refresh(OLD.asset_id);
    IF TG_OP = 'UPDATE' AND NEW.asset_id <> OLD.asset_id THEN
        PERFORM asset_place_refresh(NEW.asset_id);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER asset_place_resource AFTER DELETE OR UPDATE OF asset_id, role ON resource
    FOR EACH ROW EXECUTE FUNCTION asset_place_touch_resource();
