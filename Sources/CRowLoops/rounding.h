#pragma once
// Rounding and clamping shared by the loops.
#include <stdint.h>
#include <string.h>

// 1.5·2²³: adding it to a float of 0 ... 2²² leaves the float rounded to a whole number
// (ties to even) in the low bits of its mantissa: cheaper than a conversion with range checks.
static const float rounder = 12582912.0f;

static inline float clamp(float v, float low, float high) {
    // The order of x86's maxps and minps (the second operand when either is NaN), which
    // clang turns these into.
    v = v > low ? v : low;
    return v < high ? v : high;
}

static inline float whole(float v) { return (v + rounder) - rounder; }

static inline uint8_t byte(float v) {
    float f = v + rounder;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (uint8_t)bits;
}
