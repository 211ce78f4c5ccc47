#include "CRowLoops.h"
#include "clones.h"

static inline void doubledAt(const float *restrict line, long count, long k, float *restrict out) {
    float v = line[k], before = line[k > 0 ? k - 1 : 0], after = line[k + 1 < count ? k + 1 : count - 1];
    out[0] = 0.25f * before + 0.75f * v;
    out[1] = 0.75f * v + 0.25f * after;
}

CLONES void camlib_rows_doubled(const float *restrict line, long count, long first, long pairs, float *restrict out) {
    // The samples with both neighbours in the line (j in inner ..< end) without checks;
    // those at its ends, whose missing neighbour is the sample itself, one by one.
    long end = count - 1 - first < pairs ? count - 1 - first : pairs;
    long inner = first < 1 ? 1 - first : 0;
    if (end < inner) end = inner;
    if (inner > pairs) inner = end = pairs;
    for (long j = 0; j < inner; j++) doubledAt(line, count, first + j, out + 2 * j);
    for (long j = inner; j < end; j++) {
        long k = first + j;
        float v = line[k];
        out[2 * j] = 0.25f * line[k - 1] + 0.75f * v;
        out[2 * j + 1] = 0.75f * v + 0.25f * line[k + 1];
    }
    for (long j = end; j < pairs; j++) doubledAt(line, count, first + j, out + 2 * j);
}
