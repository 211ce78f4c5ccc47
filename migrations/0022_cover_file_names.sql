-- 0022_cover_file_names
--
-- Nothing to do on SQLite. asset_file_name is a WITHOUT ROWID table (0011), so its
-- primary key, ordered by name, already holds every column a listing by name reads. The
-- PostgreSQL twin of this migration gives that table's key the same columns, so a range
-- of names is read from the index alone there too.
SELECT 1;
