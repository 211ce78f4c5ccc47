// libpng 1.6, for its simplified API (png_image). Ownership, from png.h:
// png_image_begin_read_* allocates state that png_image_finish_read releases, or
// png_image_free on any early exit. camlib's full-API paths are the CPNGCodec target.
#include <png.h>
