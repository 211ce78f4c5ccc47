-- 0022_cover_file_names (PostgreSQL)
--
-- A listing by a name with a literal start (`--name 'IMG_35*'`) reads a range of
-- asset_file_name's primary key, then the rows it points to. SQLite keeps that table in
-- key order (WITHOUT ROWID), so the rows sit together. PostgreSQL keeps them in a heap,
-- where one name range's rows are scattered: 6,974 names of a million-asset library lay
-- on 2,058 heap pages, and reading them took 4-8 ms before the count could stop. The key
-- now INCLUDEs the summary's columns that listings filter and sort by. The range is then
-- an index-only scan (about 140 index pages, 2 ms), once the table's visibility map is
-- current, which autovacuum keeps so after inserts.
--
-- The same index stays the primary key, so each row is still kept in one index besides
-- asset_file_name_by_asset.
ALTER TABLE asset_file_name DROP CONSTRAINT asset_file_name_pkey;
ALTER TABLE asset_file_name ADD CONSTRAINT asset_file_name_pkey PRIMARY KEY (lower_name, resource_id)
    INCLUDE (asset_id, kind, captured_julian, imported_at, camera_id, sort_name, paired_by, aux_types, edited);
ANALYZE asset_file_name;
