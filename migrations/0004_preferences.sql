-- 0004_preferences
--
-- Choices the library remembers for its user, as AVCam remembers the camera the user
-- picked: key 'capture.device' holds the `--device` last given to `camlib capture`
-- ('virtual', 'file:PATH' or '/dev/videoN').
CREATE TABLE preference (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL    -- UTC, ISO 8601
);
