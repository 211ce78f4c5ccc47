-- 0020_queue_proxies_of_existing_movies
--
-- A library imported before the job queue has no proxy jobs: browsers' H.264 copies of its
-- HEVC (or other non-H.264) movies were made when first played. One proxy job for each
-- such movie not in the trash, and for each edit's movie rendered from one, as an import
-- and an edit queue them now, so that the workers make them ahead of the first play. A job
-- whose copy was made already is done at once, and so is one whose movie (of a codec not
-- recorded, as Apple's renders) turns out to be H.264.
INSERT INTO job (kind, asset_id, resource_id, dedupe_key, priority, run_after, created_at)
SELECT 'proxy', r.asset_id, r.id, 'proxy:' || r.id, 10,
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM resource r
WHERE r.role IN ('pairedVideo', 'video', 'renderedVideo')
  AND coalesce((SELECT m.video_codec FROM metadata m WHERE m.resource_id = r.id),
               (SELECT m.video_codec FROM metadata m WHERE m.resource_id = r.derived_from), '') <> 'h264'
  AND NOT EXISTS (SELECT 1 FROM trashed_asset t WHERE t.asset_id = r.asset_id)
  AND NOT EXISTS (SELECT 1 FROM job j WHERE j.kind = 'proxy' AND j.resource_id = r.id);
