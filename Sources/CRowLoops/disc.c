#include "CRowLoops.h"
#include "clones.h"
#include <string.h>

// Disc means of planes of 4 interleaved floats, by running sums along rows: a disc is a
// stack of row spans, and a span's sum is the difference of two running sums, each end
// read between two of them by linear interpolation (so a disc's rim is smooth). Each
// row's sums are padded with `pad` zeros before and `pad` copies of the row's total
// after, so a span past the plane's edge needs no test: samples outside count as zero.
// A band keeps the sums of only the 2·reach + 1 rows its current row reads, in a ring,
// so it can write its means over its own rows as it goes.
//
// camlib_disc_band4_varying does the same with a disc of its own radius for each sample.

static inline void row_sums(const float *restrict in, long width, long pad, float *restrict out) {
    for (long i = 0; i < (pad + 1) * 4; i++) out[i] = 0;
    float r = 0, g = 0, b = 0, a = 0;
    float *at = out + (pad + 1) * 4;
    for (long x = 0; x < width; x++) {
        r += in[4 * x];
        g += in[4 * x + 1];
        b += in[4 * x + 2];
        a += in[4 * x + 3];
        at[4 * x] = r;
        at[4 * x + 1] = g;
        at[4 * x + 2] = b;
        at[4 * x + 3] = a;
    }
    float *tail = at + width * 4;
    for (long i = 0; i < pad; i++) {
        tail[4 * i] = r;
        tail[4 * i + 1] = g;
        tail[4 * i + 2] = b;
        tail[4 * i + 3] = a;
    }
}

CLONES void camlib_disc_band4(
    float *plane, long width, long height, long pad, const float *restrict half, long reach, float area, long first, long count,
    const float *restrict above, const float *restrict below, float *restrict ring) {
    long stride = (width + 1 + 2 * pad) * 4, rows = 2 * reach + 1, end = first + count;
    float scale = 1 / area;
    // Row y's input: above the band from `above`, below it from `below`, else the plane
    // (rows of the band are read before they are written).
    #define INPUT(y) ((y) < first ? above + ((y) - (first - reach)) * width * 4 \
                      : (y) >= end ? below + ((y) - end) * width * 4 : plane + (y) * width * 4)
    #define SUMS(y) (ring + ((y) % rows) * stride)
    for (long y = first - reach; y < first + reach && y < height; y++) {
        if (y >= 0) row_sums(INPUT(y), width, pad, SUMS(y));
    }
    for (long y = first; y < end; y++) {
        long next = y + reach;
        if (next < height) row_sums(INPUT(next), width, pad, SUMS(next));
        float *row = plane + y * width * 4;
        for (long i = 0; i < width * 4; i++) row[i] = 0;
        for (long dy = -reach; dy <= reach; dy++) {
            long sy = y + dy;
            float h = half[dy + reach];
            if (sy < 0 || sy >= height || h <= 0) continue;
            // Sample x's span is [x + 0.5 - h, x + 0.5 + h) in columns; the running sum at
            // column t (the sum of samples before it) is stored at t + pad.
            float left = 0.5f - h, right = 0.5f + h;
            long li = (long)(left + pad + 1) - pad - 1, ri = (long)(right + pad + 1) - pad - 1;  // floors
            float lf = left - (float)li, rf = right - (float)ri;
            const float *s = SUMS(sy) + pad * 4;
            const float *l0 = s + li * 4, *r0 = s + ri * 4;
            for (long i = 0; i < width * 4; i++) {
                float hi = r0[i] + (r0[i + 4] - r0[i]) * rf;
                float lo = l0[i] + (l0[i + 4] - l0[i]) * lf;
                row[i] += hi - lo;
            }
        }
        for (long i = 0; i < width * 4; i++) row[i] *= scale;
    }
    #undef INPUT
    #undef SUMS
}

CLONES void camlib_disc_band4_varying(
    float *plane, long width, long height, long pad, const float *restrict radii, long reach, long first, long count,
    const float *restrict above, const float *restrict below, float *restrict ring, float *restrict areas, long *restrict runs) {
    long stride = (width + 1 + 2 * pad) * 4, rows = 2 * reach + 1, end = first + count;
    #define INPUT(y) ((y) < first ? above + ((y) - (first - reach)) * width * 4 \
                      : (y) >= end ? below + ((y) - end) * width * 4 : plane + (y) * width * 4)
    #define SUMS(y) (ring + ((y) % rows) * stride)
    for (long y = first - reach; y < first + reach && y < height; y++) {
        if (y >= 0) row_sums(INPUT(y), width, pad, SUMS(y));
    }
    for (long y = first; y < end; y++) {
        long next = y + reach;
        if (next < height) row_sums(INPUT(next), width, pad, SUMS(next));
        float *row = plane + y * width * 4;
        const float *radius = radii + y * width;
        // The row in runs of samples of one radius (most of a copy is one: the far
        // background's, or the least it draws), each drawn as the fixed disc's rows are.
        long nruns = 0;
        for (long x = 0; x < width;) {
            runs[nruns++] = x;
            long e = x + 1;
            while (e < width && radius[e] == radius[x]) e++;
            x = e;
        }
        runs[nruns] = width;
        for (long i = 0; i < width * 4; i++) row[i] = 0;
        for (long x = 0; x < width; x++) areas[x] = 0;
        for (long dy = -reach; dy <= reach; dy++) {
            long sy = y + dy;
            int inside = sy >= 0 && sy < height;
            // Outside the plane the spans count as zero, but their area still divides.
            const float *s = inside ? SUMS(sy) + pad * 4 : 0;
            float dy2 = (float)(dy * dy);
            for (long r = 0; r < nruns; r++) {
                long x0 = runs[r], x1 = runs[r + 1];
                float h2 = radius[x0] * radius[x0] - dy2;
                if (h2 <= 0) continue;
                float h = __builtin_sqrtf(h2);
                for (long x = x0; x < x1; x++) areas[x] += 2 * h;
                if (!inside) continue;
                // As in camlib_disc_band4: the running sum at column t is at t + pad.
                float left = 0.5f - h, right = 0.5f + h;
                long li = (long)(left + pad + 1) - pad - 1, ri = (long)(right + pad + 1) - pad - 1;  // floors
                float lf = left - (float)li, rf = right - (float)ri;
                const float *l0 = s + li * 4, *r0 = s + ri * 4;
                for (long i = x0 * 4; i < x1 * 4; i++) {
                    float hi = r0[i] + (r0[i + 4] - r0[i]) * rf;
                    float lo = l0[i] + (l0[i + 4] - l0[i]) * lf;
                    row[i] += hi - lo;
                }
            }
        }
        for (long x = 0; x < width; x++) {
            float scale = areas[x] > 0 ? 1 / areas[x] : 0;
            for (int c = 0; c < 4; c++) row[4 * x + c] *= scale;
        }
    }
    #undef INPUT
    #undef SUMS
}
