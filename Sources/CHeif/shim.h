// libheif (>= 1.19, Debian bookworm-backports). Ownership, from heif.h:
// heif_context_alloc/heif_context_free, heif_context_get_primary_image_handle and
// heif_image_handle_get_thumbnail/heif_image_handle_release, heif_decode_image/heif_image_release.
#include <libheif/heif.h>
#include <libheif/heif_properties.h>
