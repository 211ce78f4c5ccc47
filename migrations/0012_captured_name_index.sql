-- 0012_captured_name_index
--
-- A date range sorted by name, or counted. `asset_summary_by_captured` (0008) carries
-- every sort key and filter column beside the capture time, so that a date range with
-- any other filter is read and tested in one index; its entries are wide (the names of
-- every file among them). A month at a million assets is 10,572 of them: counting them
-- (the listing counts a range before it starts from it) took 2.5-4 ms and reading them to
-- sort by name 4.7-5 ms. This index holds only what those two read, about a third of
-- the pages: 1.2-1.5 ms and 2.9 ms.
--
-- Used for counting every date range, and for listing one sorted by name or id when no
-- other filter is asked for (AssetListing).

CREATE INDEX asset_summary_by_captured_name ON asset_summary(captured_julian, sort_name, asset_id);
