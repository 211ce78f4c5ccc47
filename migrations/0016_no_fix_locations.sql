-- A movie whose location is exactly 0° N 0° E ("+00.0000+000.0000/") was written by a
-- phone without a fix (Samsung's Motion Photo movies do it): not a place. Import no
-- longer records it; catalogs made before forget the ones they hold. The metadata
-- triggers of 0008 rewrite the assets' summaries.
UPDATE metadata SET latitude = NULL, longitude = NULL, altitude = NULL
WHERE latitude = 0 AND longitude = 0 AND format IN ('quicktime', 'mp4');
