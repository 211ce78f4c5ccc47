-- 0006_current_version_views
--
-- What an asset is now. An edit or an attached auxiliary image adds an adjustment whose
-- renders (renderedPhoto, renderedVideo) stand for the asset while it is current; once
-- another version is current they are history. These views give the current version
-- only, so `camlib show`, `camlib query --has` and a person with sqlite3 agree on it.

-- Every resource of the current versions: originals, thumbnails, sidecars, extracted
-- files, and the renders of each asset's current adjustment (none when the original is
-- current).
CREATE VIEW current_resource AS
SELECT r.*
FROM resource r
WHERE NOT EXISTS (SELECT 1 FROM adjustment_render ar WHERE ar.resource_id = r.id)
   OR EXISTS (SELECT 1
              FROM adjustment_render ar
              JOIN asset_version v ON v.current_adjustment_id = ar.adjustment_id
              WHERE ar.resource_id = r.id AND v.asset_id = r.asset_id);

-- Auxiliary images of the current versions: the original's, and those a current render
-- holds (an attached depth map or matte).
DROP VIEW aux_overview;
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
JOIN current_resource r ON r.id = x.resource_id;
