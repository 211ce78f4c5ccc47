-- 0024_index_original_sizes (PostgreSQL)
--
-- The twin of migrations/0024: originals by size, for the gallery's upload.
CREATE INDEX resource_original_bytes ON resource(bytes)
    WHERE role IN ('photo', 'pairedVideo', 'video') AND derived_from IS NULL;
