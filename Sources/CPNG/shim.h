// libpng 1.6, simplified API (png_image). Ownership, from png.h: png_image_begin_read_*
// allocates state that png_image_finish_read releases, or png_image_free on any early exit.
#include <png.h>

// Function-like macros Swift cannot import.
static inline unsigned int CPNG_IMAGE_ROW_STRIDE(const png_image *image) { return PNG_IMAGE_ROW_STRIDE(*image); }
static inline size_t CPNG_IMAGE_SIZE(const png_image *image) { return PNG_IMAGE_SIZE(*image); }
static inline unsigned int CPNG_FORMAT_RGB(void) { return PNG_FORMAT_RGB; }
static inline unsigned int CPNG_FORMAT_GRAY(void) { return PNG_FORMAT_GRAY; }
static inline unsigned int CPNG_IMAGE_VERSION(void) { return PNG_IMAGE_VERSION; }
