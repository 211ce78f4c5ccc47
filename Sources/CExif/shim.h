// libexif. Ownership, from exif-data.h: exif_data_new/exif_data_unref; entries belong to
// their ExifData and are never freed on their own.
#include <libexif/exif-data.h>
#include <libexif/exif-content.h>
#include <libexif/exif-entry.h>
#include <libexif/exif-utils.h>
#include <libexif/exif-tag.h>
#include <libexif/exif-ifd.h>
#include <libexif/exif-log.h>
