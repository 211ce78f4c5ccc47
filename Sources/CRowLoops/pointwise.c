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

// Local tone (LocalTone.Plan): the pixel's base from the coefficients and its Rec. 709
// luma, and the pixel multiplied by its base's gain. The same arithmetic, in the same
// order, for 8 and 16 bits.
#define LOCAL_TONE(T, top)                                                                          \
    for (long x = 0; x < count; x++) {                                                              \
        float r = (float)rgb[3 * x], g = (float)rgb[3 * x + 1], b = (float)rgb[3 * x + 2];           \
        float luma = (0.2126f * r + 0.7152f * g + 0.0722f * b) / (top);                              \
        float base = slope[x] * luma + offset[x];                                                   \
        base = base < 0 ? 0 : base > 1 ? 1 : base;                                                  \
        float k = gains[(int32_t)(base * (float)steps + 0.5f)];                                     \
        float vr = r * k + 0.5f, vg = g * k + 0.5f, vb = b * k + 0.5f;                              \
        rgb[3 * x] = (T)(int32_t)(vr < (top) ? vr : (top));                                          \
        rgb[3 * x + 1] = (T)(int32_t)(vg < (top) ? vg : (top));                                      \
        rgb[3 * x + 2] = (T)(int32_t)(vb < (top) ? vb : (top));                                      \
    }

CLONES void camlib_local_tone8(
    uint8_t *restrict rgb, long count, const float *restrict slope, const float *restrict offset, const float *restrict gains, long steps) {
    LOCAL_TONE(uint8_t, 255.0f)
}

CLONES void camlib_local_tone16(
    uint16_t *restrict rgb, long count, const float *restrict slope, const float *restrict offset, const float *restrict gains, long steps) {
    LOCAL_TONE(uint16_t, 65535.0f)
}
