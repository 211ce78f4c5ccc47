#pragma once
// Each function compiled for AVX2 and for the baseline (SSE2), the processor's choice
// made by the loader (an ifunc).
#define CLONES __attribute__((target_clones("avx2", "default")))
