-- 0014_organise
--
-- Favourites, albums and keywords, as Apple Photos and Immich keep them: what a user says
-- about assets, beside what the files say. Deleting an asset (emptying the trash) takes
-- its place in them along; an album or keyword itself stays until it is deleted.

-- The assets marked as favourites (`camlib favorite`), since when.
CREATE TABLE favorite (
    asset_id INTEGER PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    added_at TEXT NOT NULL                   -- UTC
);

-- Albums: a name, a cover, and assets in an order of their own. An asset may be in many.
CREATE TABLE album (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT NOT NULL UNIQUE,
    cover_asset_id INTEGER REFERENCES asset(id) ON DELETE SET NULL,  -- NULL: the first asset
    created_at     TEXT NOT NULL              -- UTC
);
CREATE TABLE album_asset (
    album_id INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,               -- the album's order, smallest first
    added_at TEXT NOT NULL,                  -- UTC
    PRIMARY KEY (album_id, asset_id)
) WITHOUT ROWID;
CREATE INDEX album_asset_order ON album_asset(album_id, position);
CREATE INDEX album_asset_by_asset ON album_asset(asset_id);

-- Keywords (tags), each once; an asset has any number.
CREATE TABLE keyword (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE asset_keyword (
    keyword_id INTEGER NOT NULL REFERENCES keyword(id) ON DELETE CASCADE,
    asset_id   INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    PRIMARY KEY (keyword_id, asset_id)
) WITHOUT ROWID;
CREATE INDEX asset_keyword_by_asset ON asset_keyword(asset_id);

-- `camlib query --near LAT,LON --within 5km`: places by latitude, so a search reads the
-- band of latitudes the circle spans.
CREATE INDEX metadata_by_place ON metadata(latitude, longitude) WHERE latitude IS NOT NULL;

-- Views for people who query with sqlite3.

-- Each album with its size and cover (the chosen one, else its first asset).
CREATE VIEW album_overview AS
SELECT a.id,
       a.name,
       (SELECT count(*) FROM album_asset x WHERE x.album_id = a.id) AS assets,
       coalesce(a.cover_asset_id,
                (SELECT x.asset_id FROM album_asset x WHERE x.album_id = a.id ORDER BY x.position LIMIT 1)) AS cover_asset_id,
       a.created_at
FROM album a;

-- Each keyword with how many assets carry it.
CREATE VIEW keyword_overview AS
SELECT k.id, k.name, (SELECT count(*) FROM asset_keyword x WHERE x.keyword_id = k.id) AS assets
FROM keyword k;
