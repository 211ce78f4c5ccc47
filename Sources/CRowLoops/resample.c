#include "CRowLoops.h"
#include <immintrin.h>
#include <math.h>
#include <string.h>

// Bilinear resampling of 8-bit pictures. Both versions (AVX2 for 3 channels, scalar for
// any) place every output pixel alike, so they give the same bytes: the input point in
// 16.16 fixed point, taken exactly (from doubles) at the first pixel of each run of 8
// along a row and stepped by the rounded step within it; weights in 1/256; each
// coordinate clamped to the picture, and the last column or row read as the one before
// with its whole weight on the far side (so no read goes past the picture).

enum { run = 8 };

typedef struct {
    long width, height, channels, outWidth;
    double a, b, c, d, e, f;
    int32_t stepX, stepY, maxX, maxY;
} plan;

static plan make_plan(long width, long height, long channels, long outWidth, const double *placement) {
    plan p = {width, height, channels, outWidth, placement[0], placement[1], placement[2], placement[3], placement[4], placement[5]};
    p.stepX = (int32_t)llround(p.a * 65536);
    p.stepY = (int32_t)llround(p.d * 65536);
    p.maxX = (int32_t)((width - 1) << 16);
    p.maxY = (int32_t)((height - 1) << 16);
    return p;
}

// The input point of output pixel (x, y)'s centre at the start of a run, in 1/65536,
// held within ±2¹⁴ pixels (anything outside the picture is clamped anyway; the caller
// keeps pictures within 16384 pixels and steps within 64, so a run stays inside int32).
static inline int32_t fixed(double v) {
    v = v < -16384 ? -16384 : v > 16384 ? 16384 : v;
    // Rounded to nearest: truncation of a positive double is its floor (no libm call).
    return (int32_t)((int64_t)(v * 65536 + 2147483648.5) - 2147483648);
}
static inline void run_start(const plan *p, long x, long y, int32_t *sx, int32_t *sy) {
    double ox = (double)x + 0.5, oy = (double)y + 0.5;
    *sx = fixed(p->a * ox + p->b * oy + p->c - 0.5);
    *sy = fixed(p->d * ox + p->e * oy + p->f - 0.5);
}

// One coordinate clamped, split into a sample index (at most size − 2) and a weight in
// 0 ... 256 for the sample after it.
static inline void split(int32_t v, int32_t max, long size, long *index, uint32_t *weight) {
    v = v < 0 ? 0 : v > max ? max : v;
    long i = v >> 16;
    uint32_t w = (uint32_t)(v >> 8) & 255;
    if (i > size - 2) { i = size - 2; w = 256; }
    *index = i;
    *weight = w;
}

static inline void pixel(const plan *p, const uint8_t *restrict src, int32_t sx, int32_t sy, long channels, uint8_t *restrict out) {
    long x0, y0;
    uint32_t wx, wy;
    split(sx, p->maxX, p->width, &x0, &wx);
    split(sy, p->maxY, p->height, &y0, &wy);
    const uint8_t *p00 = src + (y0 * p->width + x0) * channels, *p10 = p00 + p->width * channels;
    for (long k = 0; k < channels; k++) {
        uint32_t top = (uint32_t)p00[k] * (256 - wx) + (uint32_t)p00[k + channels] * wx;
        uint32_t bottom = (uint32_t)p10[k] * (256 - wx) + (uint32_t)p10[k + channels] * wx;
        out[k] = (uint8_t)((top * (256 - wy) + bottom * wy + 32768) >> 16);
    }
}

static inline void scalar_rows(const plan *p, const uint8_t *restrict src, long channels, long firstRow, long rowCount, uint8_t *restrict dst) {
    for (long y = firstRow; y < firstRow + rowCount; y++) {
        uint8_t *restrict out = dst + (y - firstRow) * p->outWidth * channels;
        for (long x = 0; x < p->outWidth; x += run) {
            int32_t sx, sy;
            run_start(p, x, y, &sx, &sy);
            long end = x + run < p->outWidth ? x + run : p->outWidth;
            for (long i = x; i < end; i++, sx += p->stepX, sy += p->stepY) pixel(p, src, sx, sy, channels, out + i * channels);
        }
    }
}

// 3 channels, 8 pixels at a time: four gathers of 32 bits (each pixel's four neighbours),
// the horizontal blend of a channel in one multiply-add of 16-bit pairs.
__attribute__((target("avx2"))) static void avx2_rows3(const plan *p, const uint8_t *restrict src, long firstRow, long rowCount, uint8_t *restrict dst) {
    const int32_t stride = (int32_t)(p->width * 3);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i stepX = _mm256_mullo_epi32(lane, _mm256_set1_epi32(p->stepX)), stepY = _mm256_mullo_epi32(lane, _mm256_set1_epi32(p->stepY));
    const __m256i zero = _mm256_setzero_si256(), maxX = _mm256_set1_epi32(p->maxX), maxY = _mm256_set1_epi32(p->maxY);
    const __m256i lastX = _mm256_set1_epi32((int32_t)p->width - 2), lastY = _mm256_set1_epi32((int32_t)p->height - 2);
    const __m256i byte = _mm256_set1_epi32(255), whole = _mm256_set1_epi32(256), half = _mm256_set1_epi32(32768);
    const __m256i low = _mm256_set1_epi32(0x00FF00FF), strides = _mm256_set1_epi32(stride);
    // r g b r' g' b' → 16-bit pairs per 128-bit lane, 4 pixels of 3 bytes into 12.
    const __m256i pack = _mm256_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    for (long y = firstRow; y < firstRow + rowCount; y++) {
        uint8_t *restrict out = dst + (y - firstRow) * p->outWidth * 3;
        long x = 0;
        for (; x + run <= p->outWidth; x += run) {
            int32_t sx, sy;
            run_start(p, x, y, &sx, &sy);
            __m256i vx = _mm256_add_epi32(_mm256_set1_epi32(sx), stepX), vy = _mm256_add_epi32(_mm256_set1_epi32(sy), stepY);
            vx = _mm256_min_epi32(_mm256_max_epi32(vx, zero), maxX);
            vy = _mm256_min_epi32(_mm256_max_epi32(vy, zero), maxY);
            __m256i x0 = _mm256_srai_epi32(vx, 16), y0 = _mm256_srai_epi32(vy, 16);
            __m256i wx = _mm256_and_si256(_mm256_srli_epi32(vx, 8), byte), wy = _mm256_and_si256(_mm256_srli_epi32(vy, 8), byte);
            // The last column or row: the one before, weighted wholly to its far side.
            __m256i pastX = _mm256_cmpgt_epi32(x0, lastX), pastY = _mm256_cmpgt_epi32(y0, lastY);
            x0 = _mm256_blendv_epi8(x0, lastX, pastX);
            wx = _mm256_blendv_epi8(wx, whole, pastX);
            y0 = _mm256_blendv_epi8(y0, lastY, pastY);
            wy = _mm256_blendv_epi8(wy, whole, pastY);
            __m256i at = _mm256_add_epi32(_mm256_mullo_epi32(y0, strides), _mm256_add_epi32(x0, _mm256_add_epi32(x0, x0)));
            // Each pixel's 3 bytes and the next's: loads that end on the pixel's last byte.
            __m256i g00 = _mm256_i32gather_epi32((const int *)src, at, 1);
            __m256i g01 = _mm256_srli_epi32(_mm256_i32gather_epi32((const int *)(src + 2), at, 1), 8);
            __m256i g10 = _mm256_i32gather_epi32((const int *)(src + stride), at, 1);
            __m256i g11 = _mm256_srli_epi32(_mm256_i32gather_epi32((const int *)(src + stride + 2), at, 1), 8);
            __m256i weights = _mm256_or_si256(_mm256_sub_epi32(whole, wx), _mm256_slli_epi32(wx, 16));
            __m256i above = _mm256_sub_epi32(whole, wy);
            // (c, c') pairs: red and green from the low halves, blue from the high.
            __m256i t0 = _mm256_blend_epi16(g00, _mm256_slli_epi32(g01, 16), 0xAA);
            __m256i t1 = _mm256_blend_epi16(_mm256_srli_epi32(g00, 16), g01, 0xAA);
            __m256i b0 = _mm256_blend_epi16(g10, _mm256_slli_epi32(g11, 16), 0xAA);
            __m256i b1 = _mm256_blend_epi16(_mm256_srli_epi32(g10, 16), g11, 0xAA);
            __m256i tops[3] = {
                _mm256_madd_epi16(_mm256_and_si256(t0, low), weights),
                _mm256_madd_epi16(_mm256_and_si256(_mm256_srli_epi32(t0, 8), low), weights),
                _mm256_madd_epi16(_mm256_and_si256(t1, low), weights)};
            __m256i bottoms[3] = {
                _mm256_madd_epi16(_mm256_and_si256(b0, low), weights),
                _mm256_madd_epi16(_mm256_and_si256(_mm256_srli_epi32(b0, 8), low), weights),
                _mm256_madd_epi16(_mm256_and_si256(b1, low), weights)};
            __m256i colours = zero;
            for (int k = 0; k < 3; k++) {
                __m256i v = _mm256_add_epi32(_mm256_mullo_epi32(tops[k], above), _mm256_mullo_epi32(bottoms[k], wy));
                colours = _mm256_or_si256(colours, _mm256_slli_epi32(_mm256_srli_epi32(_mm256_add_epi32(v, half), 16), 8 * k));
            }
            colours = _mm256_shuffle_epi8(colours, pack);
            uint8_t packed[32];
            _mm256_storeu_si256((__m256i *)packed, colours);
            memcpy(out + x * 3, packed, 12);
            memcpy(out + x * 3 + 12, packed + 16, 12);
        }
        for (; x < p->outWidth; x += run) {
            int32_t sx, sy;
            run_start(p, x, y, &sx, &sy);
            for (long i = x; i < p->outWidth; i++, sx += p->stepX, sy += p->stepY) pixel(p, src, sx, sy, 3, out + i * 3);
        }
    }
}

void camlib_bilinear_rows(
    const uint8_t *restrict src, long width, long height, long channels, long outWidth, long firstRow, long rowCount,
    const double *placement, uint8_t *restrict dst) {
    plan p = make_plan(width, height, channels, outWidth, placement);
    if (channels == 3 && __builtin_cpu_supports("avx2")) {
        avx2_rows3(&p, src, firstRow, rowCount, dst);
        return;
    }
    switch (channels) {
    case 1: scalar_rows(&p, src, 1, firstRow, rowCount, dst); break;
    case 3: scalar_rows(&p, src, 3, firstRow, rowCount, dst); break;
    case 4: scalar_rows(&p, src, 4, firstRow, rowCount, dst); break;
    default: scalar_rows(&p, src, channels, firstRow, rowCount, dst); break;
    }
}

/// Test hook: the scalar version alone, to compare with the AVX2 one.
void camlib_bilinear_rows_scalar(
    const uint8_t *restrict src, long width, long height, long channels, long outWidth, long firstRow, long rowCount,
    const double *placement, uint8_t *restrict dst) {
    plan p = make_plan(width, height, channels, outWidth, placement);
    scalar_rows(&p, src, channels, firstRow, rowCount, dst);
}
