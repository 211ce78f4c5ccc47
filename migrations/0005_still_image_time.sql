-- 0005_still_image_time
--
-- A Live Photo's photo display time: the moment its still was taken, in seconds from the
-- start of its movie, read from Apple's timed metadata track (mebx key
-- com.apple.quicktime.still-image-time, placed by that track's edit list). Set on the
-- movie's metadata row; NULL for movies without the track.
ALTER TABLE metadata ADD COLUMN still_image_time REAL;
