-- 0007_adjustment_render_by_resource
--
-- "Is this file some adjustment's render?" is asked for every resource that `show`,
-- `query` and the current_resource view look at; without this index each answer scanned
-- the whole adjustment_render table.
CREATE INDEX adjustment_render_by_resource ON adjustment_render(resource_id, adjustment_id);
