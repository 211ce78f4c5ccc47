-- 0026_index_lenses
--
-- The search box matches a word against lenses too. A library holds a few dozen distinct
-- lens models among a million files: this index lists them by a skip from one to the next
-- (a few dozen probes, not a scan), and finds the files of the ones a word matches.
CREATE INDEX metadata_by_lens ON metadata(lens_model) WHERE lens_model IS NOT NULL;
