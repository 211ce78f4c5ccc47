-- 0023_record_crc32 (PostgreSQL)
--
-- The twin of migrations/0023: each file's CRC-32, kept in a bigint as PostgreSQL has no
-- unsigned 32-bit type. PostgreSQL expands a view's `r.*` when the view is made, where
-- SQLite does when it is read: current_resource is made again to show the new column.
ALTER TABLE resource ADD COLUMN crc32 bigint CHECK (crc32 BETWEEN 0 AND 4294967295);

CREATE OR REPLACE VIEW current_resource AS
SELECT r.*
FROM resource r
WHERE NOT EXISTS (SELECT 1 FROM adjustment_render ar WHERE ar.resource_id = r.id)
   OR EXISTS (SELECT 1
              FROM adjustment_render ar
              JOIN asset_version v ON v.current_adjustment_id = ar.adjustment_id
              WHERE ar.resource_id = r.id AND v.asset_id = r.asset_id);
