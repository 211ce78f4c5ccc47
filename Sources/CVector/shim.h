// Four-lane float minimum and maximum as single instructions. Swift's SIMD types have
// them only as lane-by-lane loops (pointwiseMin/Max, replacing(with:where:)), which
// LLVM puts back together badly for SSE2: a clamp became compares, shuffles and a branch
// per lane. Swift imports a 16-byte float vector as SIMD4<Float>.
#if defined(__SSE2__)
#include <emmintrin.h>
typedef __m128 camlib_float4;
static inline camlib_float4 camlib_max4(camlib_float4 a, camlib_float4 b) { return _mm_max_ps(a, b); }
static inline camlib_float4 camlib_min4(camlib_float4 a, camlib_float4 b) { return _mm_min_ps(a, b); }
#else
typedef float camlib_float4 __attribute__((vector_size(16)));
static inline camlib_float4 camlib_max4(camlib_float4 a, camlib_float4 b) { return __builtin_elementwise_max(a, b); }
static inline camlib_float4 camlib_min4(camlib_float4 a, camlib_float4 b) { return __builtin_elementwise_min(a, b); }
#endif
