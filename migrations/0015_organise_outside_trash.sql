-- Albums and keywords count what is outside the trash, as Apple Photos' albums do: an
-- asset in the trash leaves its albums' and keywords' counts and is no album's cover
-- until it is restored. Its album places and keywords stay, so a restore brings them
-- back. (0014's views counted every asset.)

DROP VIEW album_overview;
CREATE VIEW album_overview AS
SELECT a.id,
       a.name,
       (SELECT count(*) FROM album_asset x
        WHERE x.album_id = a.id AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = x.asset_id)) AS assets,
       coalesce(
           (SELECT a.cover_asset_id WHERE NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = a.cover_asset_id)),
           (SELECT x.asset_id FROM album_asset x
            WHERE x.album_id = a.id AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = x.asset_id)
            ORDER BY x.position LIMIT 1)) AS cover_asset_id,
       a.created_at
FROM album a;

DROP VIEW keyword_overview;
CREATE VIEW keyword_overview AS
SELECT k.id,
       k.name,
       (SELECT count(*) FROM asset_keyword x
        WHERE x.keyword_id = k.id AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = x.asset_id)) AS assets
FROM keyword k;
