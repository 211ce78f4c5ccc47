#include "CRowLoops.h"
#include "clones.h"
#include "rounding.h"

CLONES void camlib_rows_halved_rgb(
    const uint8_t *restrict above, const uint8_t *restrict below, const uint8_t *restrict cb, const uint8_t *restrict cr,
    long count, float lumaScale, float lumaOffset, float crToR, float cbToG, float crToG, float cbToB, uint8_t *restrict rgb) {
    for (long i = 0; i < count; i++) {
        long x = 2 * i;
        float sum = ((float)above[x] + (float)below[x]) + ((float)above[x + 1] + (float)below[x + 1]);
        float luma = (sum * 0.25f - lumaOffset) * lumaScale;
        float u = (float)cb[i] - 128, v = (float)cr[i] - 128;
        rgb[3 * i] = byte(clamp(luma + crToR * v, 0, 255));
        rgb[3 * i + 1] = byte(clamp(luma + cbToG * u + crToG * v, 0, 255));
        rgb[3 * i + 2] = byte(clamp(luma + cbToB * u, 0, 255));
    }
}

CLONES void camlib_row_420_rgb(
    const uint8_t *restrict luma, const uint8_t *restrict cb, const uint8_t *restrict cr, long x0, long count, float lumaScale,
    float lumaOffset, float crToR, float cbToG, float crToG, float cbToB, uint8_t *restrict rgb) {
    for (long i = 0; i < count; i++) {
        long x = x0 + i;
        float u = (float)cb[x >> 1] - 128, v = (float)cr[x >> 1] - 128;
        float y = ((float)luma[x] - lumaOffset) * lumaScale;
        rgb[3 * i] = byte(clamp(y + crToR * v, 0, 255));
        rgb[3 * i + 1] = byte(clamp(y + cbToG * u + crToG * v, 0, 255));
        rgb[3 * i + 2] = byte(clamp(y + cbToB * u, 0, 255));
    }
}
