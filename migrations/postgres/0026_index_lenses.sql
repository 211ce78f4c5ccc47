-- 0026_index_lenses (PostgreSQL)
--
-- The twin of migrations/0026: lens models, for the search box.
CREATE INDEX metadata_by_lens ON metadata(lens_model) WHERE lens_model IS NOT NULL;
