#include "CRowLoops.h"
#include "clones.h"
#include <string.h>

// Disc means of planes of 4 interleaved floats, by running sums along rows: a disc is a
// stack of row spans, and a span's sum is the difference of two running sums, each end
// read between two of them by linear interpolation (so a disc's rim is smooth). Each
// row's sums are padded with `pad` zeros before and `pad` copies of the row's total
// after, so a span past the plane's edge needs no test: samples outside count as zero.
// A band keeps the sums of only the 2·reach + 1 rows its current row reads, in a ring,
// so it can write its means over its own rows as it goes. Each sample's disc has its own
// radius; a row is drawn in runs of samples of one radius.
//
// camlib_disc_scatter4 is the transpose: each sample spread over a disc of its own
// radius, each row's span ending between two samples by the share of it the span
// covers (the weights the interpolated running sums give a gather).

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

// A band's rows and the ring of running sums it reads.
typedef struct {
    float *plane;
    long width, height, pad, reach, first, end, stride, rows;
    const float *above, *below;
    float *ring;
} band_t;

static inline band_t band_make(
    float *plane, long width, long height, long pad, long reach, long first, long count, const float *above, const float *below, float *ring) {
    band_t b = {plane, width, height, pad, reach, first, first + count, (width + 1 + 2 * pad) * 4, 2 * reach + 1, above, below, ring};
    return b;
}

// Row y's input: above the band from `above`, below it from `below`, else the plane
// (rows of the band are read before they are written).
static inline const float *band_input(const band_t *b, long y) {
    if (y < b->first) return b->above + (y - (b->first - b->reach)) * b->width * 4;
    if (y >= b->end) return b->below + (y - b->end) * b->width * 4;
    return b->plane + y * b->width * 4;
}

// Row y's running sums, read from column −pad: the sum before column t is at t.
static inline const float *band_sums(const band_t *b, long y) { return b->ring + (y % b->rows) * b->stride + b->pad * 4; }

// The running sums of the rows the band's first row reads, but the last.
static inline void band_start(const band_t *b) {
    for (long y = b->first - b->reach; y < b->first + b->reach && y < b->height; y++) {
        if (y >= 0) row_sums(band_input(b, y), b->width, b->pad, b->ring + (y % b->rows) * b->stride);
    }
}

// Before row y: the running sums of the last row it reads.
static inline void band_next(const band_t *b, long y) {
    long next = y + b->reach;
    if (next < b->height) row_sums(band_input(b, next), b->width, b->pad, b->ring + (next % b->rows) * b->stride);
}

// Adds to samples x0 ..< x1 of `row` their spans of h samples either side of the
// sample's centre in the row whose running sums are `s`, each end read between two
// running sums by linear interpolation.
static inline void add_spans(float *restrict row, const float *restrict s, float h, long pad, long x0, long x1) {
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

CLONES void camlib_disc_band4_varying(
    float *plane, long width, long height, long pad, const float *restrict radii, long reach, long first, long count,
    const float *restrict above, const float *restrict below, float *restrict ring, float *restrict areas, long *restrict runs) {
    band_t b = band_make(plane, width, height, pad, reach, first, count, above, below, ring);
    band_start(&b);
    for (long y = first; y < b.end; y++) {
        band_next(&b, y);
        float *row = plane + y * width * 4;
        const float *radius = radii + y * width;
        // The row in runs of samples of one radius (most of a copy is one: the far
        // background's, or the least it draws), each run's spans summed in one loop.
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
            float dy2 = (float)(dy * dy);
            for (long r = 0; r < nruns; r++) {
                long x0 = runs[r], x1 = runs[r + 1];
                float h2 = radius[x0] * radius[x0] - dy2;
                if (h2 <= 0) continue;
                float h = __builtin_sqrtf(h2);
                // Outside the plane the spans count as zero, but their area still divides.
                for (long x = x0; x < x1; x++) areas[x] += 2 * h;
                if (inside) add_spans(row, band_sums(&b, sy), h, pad, x0, x1);
            }
        }
        for (long x = 0; x < width; x++) {
            float scale = areas[x] > 0 ? 1 / areas[x] : 0;
            for (int c = 0; c < 4; c++) row[4 * x + c] *= scale;
        }
    }
}

// Adds v · share to the 4 floats at `at`.
static inline void add_share(float *restrict at, const float *restrict v, float share) {
    for (int c = 0; c < 4; c++) at[c] += v[c] * share;
}

CLONES void camlib_disc_scatter4(
    const float *restrict in, long width, long height, const float *restrict radii, const long *restrict spans, long reach,
    long first, long count, float *restrict out, double *restrict diff) {
    for (long y = first; y < first + count; y++) {
        float *row = out + y * width * 4;
        for (long i = 0; i < width * 4; i++) row[i] = 0;
        for (long i = 0; i < (width + 1) * 4; i++) diff[i] = 0;
        // Every sample whose disc reaches row y: rows sy = y − dy.
        for (long dy = -reach; dy <= reach; dy++) {
            long sy = y - dy;
            if (sy < 0 || sy >= height) continue;
            const float *src = in + sy * width * 4;
            const float *radius = radii + sy * width;
            float dy2 = (float)(dy * dy);
            for (long x = spans[2 * sy]; x < spans[2 * sy + 1]; x++) {
                const float *v = src + 4 * x;
                float h2 = radius[x] * radius[x] - dy2;
                if (h2 <= 0 || v[3] == 0) continue;
                float h = __builtin_sqrtf(h2);
                // The span [left, right) in the row: its end samples take the part of
                // them it covers, the samples between all of v (through `diff`).
                float left = (float)x + 0.5f - h, right = (float)x + 0.5f + h;
                long li = (long)__builtin_floorf(left), ri = (long)__builtin_floorf(right);
                if (li == ri) {
                    add_share(row + 4 * li, v, right - left);
                    continue;
                }
                if (li >= 0) add_share(row + 4 * li, v, (float)(li + 1) - left);
                if (ri < width) add_share(row + 4 * ri, v, right - (float)ri);
                long s = li + 1 < 0 ? 0 : li + 1, e = ri > width ? width : ri;
                if (s < e) {
                    for (int c = 0; c < 4; c++) {
                        diff[4 * s + c] += v[c];
                        diff[4 * e + c] -= v[c];
                    }
                }
            }
        }
        double sum[4] = {0, 0, 0, 0};
        for (long x = 0; x < width; x++) {
            for (int c = 0; c < 4; c++) {
                sum[c] += diff[4 * x + c];
                row[4 * x + c] += (float)sum[c];
            }
        }
    }
}
