-- 0023_record_crc32
--
-- Each file's CRC-32 (ZIP's), as import and edits compute it while they write the file.
-- A ZIP download then puts it in the entry's local header and sends the file's bytes as
-- they are, without reading them through a checksum first. Files that entered the library
-- before this migration have none; a download computes theirs as it sends them.
ALTER TABLE resource ADD COLUMN crc32 INTEGER CHECK (crc32 BETWEEN 0 AND 4294967295);
