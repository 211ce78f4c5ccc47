-- 0018_views_that_answer_their_question
--
-- Three views that answered another question than their name asks.

-- A Live Photo half whose partner is not in the library: a movie that carries a Live
-- Photo's content identifier (com.apple.quicktime.content.identifier) in an asset of its
-- own. A still's identifier (Apple MakerNote 0x0011) alone does not say it was a Live
-- Photo: Apple gives spatial photos and bursts one too, so a still is never listed.
DROP VIEW unpaired_live_half;
CREATE VIEW unpaired_live_half AS
SELECT r.asset_id,
       r.role,
       r.path,
       m.content_identifier,
       m.still_image_time
FROM resource r
JOIN metadata m ON m.resource_id = r.id
JOIN asset a    ON a.id = r.asset_id
WHERE m.content_identifier IS NOT NULL
  AND a.kind = 'video'
  AND r.role = 'video';

-- Assets per camera, with the first and last moments they were taken, compared as
-- moments (julianday reads each time's UTC offset; a time without one is taken as UTC),
-- not as text, which sorted 10:00+03:00 after 09:00+00:00. Given in UTC.
DROP VIEW assets_by_camera;
CREATE VIEW assets_by_camera AS
SELECT make,
       model,
       count(*) AS assets,
       strftime('%Y-%m-%dT%H:%M:%fZ', min(julianday(captured_at))) AS first_captured,
       strftime('%Y-%m-%dT%H:%M:%fZ', max(julianday(captured_at))) AS last_captured
FROM asset_overview
GROUP BY make, model;

-- Assets whose current version has distance data, as `camlib query --has depth` finds
-- them: a depth map, or a disparity map (how iPhones store theirs). asset_summary's
-- aux_types lists the types as stored, where an iPhone's map says 'disparity'.
CREATE VIEW assets_with_depth AS
SELECT asset_id,
       group_concat(type) AS types
FROM (SELECT DISTINCT asset_id, type FROM aux_overview WHERE type IN ('depth', 'disparity') ORDER BY asset_id, type)
GROUP BY asset_id;
