#include "CRowLoops.h"
#include "clones.h"

CLONES void camlib_rgb_tables(uint8_t *restrict rgb, long count, const uint8_t *restrict tables) {
    for (long i = 0; i < count; i++) {
        rgb[3 * i] = tables[rgb[3 * i]];
        rgb[3 * i + 1] = tables[256 + rgb[3 * i + 1]];
        rgb[3 * i + 2] = tables[512 + rgb[3 * i + 2]];
    }
}

static inline uint8_t clamped(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

CLONES void camlib_rgb_chroma_scaled(uint8_t *restrict rgb, long count, int32_t factor) {
    for (long i = 0; i < count; i++) {
        int32_t r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        int32_t y = (54 * r + 183 * g + 19 * b + 128) >> 8;
        rgb[3 * i] = clamped(y + (((r - y) * factor + 128) >> 8));
        rgb[3 * i + 1] = clamped(y + (((g - y) * factor + 128) >> 8));
        rgb[3 * i + 2] = clamped(y + (((b - y) * factor + 128) >> 8));
    }
}
