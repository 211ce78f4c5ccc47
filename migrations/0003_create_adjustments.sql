-- 0003_create_adjustments
--
-- Non-destructive edits. An adjustment is a recipe (format identifier, format version,
-- data) that renders from the asset's original; each asset has a current version: the
-- original or one adjustment. Edits add adjustments and renders; revert points the
-- asset back at the original. Nothing here is ever deleted by an edit: history stays.

-- One recipe applied to an asset. camlib's own ('org.camlib.filters') renders from the
-- original; Apple's ('com.apple.photo', from an .AAE sidecar) comes with Apple's render.
CREATE TABLE adjustment (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    asset_id            INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    format_identifier   TEXT NOT NULL,         -- reverse DNS: org.camlib.filters, com.apple.photo
    format_version      TEXT NOT NULL,
    data                TEXT NOT NULL,         -- camlib: the recipe as JSON with sorted keys; Apple: its decoded JSON
    applies_to          TEXT NOT NULL DEFAULT 'original' CHECK (applies_to IN ('original')),
    extends_id          INTEGER REFERENCES adjustment(id),  -- the adjustment this one resumed (--add-filter)
    origin              TEXT NOT NULL CHECK (origin IN ('camlib', 'apple')),
    sidecar_resource_id INTEGER REFERENCES resource(id) ON DELETE SET NULL,  -- the .AAE it was read from
    created_at          TEXT NOT NULL          -- UTC
);
CREATE INDEX adjustment_by_asset ON adjustment(asset_id, id);

-- The files an adjustment rendered (renderedPhoto, renderedVideo resources).
CREATE TABLE adjustment_render (
    adjustment_id INTEGER NOT NULL REFERENCES adjustment(id) ON DELETE CASCADE,
    resource_id   INTEGER NOT NULL REFERENCES resource(id) ON DELETE CASCADE,
    PRIMARY KEY (adjustment_id, resource_id)
);

-- Each asset's current version; no row (or a NULL adjustment) means the original.
CREATE TABLE asset_version (
    asset_id              INTEGER PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    current_adjustment_id INTEGER REFERENCES adjustment(id),
    changed_at            TEXT NOT NULL        -- UTC
);

-- Every adjustment with whether it is current, newest last.
CREATE VIEW adjustment_history AS
SELECT d.asset_id,
       d.id                  AS adjustment_id,
       d.format_identifier,
       d.format_version,
       d.origin,
       d.data,
       d.created_at,
       COALESCE(v.current_adjustment_id = d.id, 0) AS current
FROM adjustment d
LEFT JOIN asset_version v ON v.asset_id = d.asset_id
ORDER BY d.asset_id, d.id;
