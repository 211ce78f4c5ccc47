-- 0024_index_original_sizes
--
-- The gallery's upload asks which of the sizes of the files it is about to send the
-- library's originals have, and hashes only those files to learn whether they are in the
-- library already: a file of a size no original has cannot be one. This index answers a
-- page of sizes from the originals alone.
CREATE INDEX resource_original_bytes ON resource(bytes)
    WHERE role IN ('photo', 'pairedVideo', 'video') AND derived_from IS NULL;
