// Lane masks for the AVX2 kernels' partial vectors (the last rows of a tile).
// Header-only, for kernel files compiled with AVX2. vmaskmovps leaves masked
// lanes alone: they are neither read nor written, so nothing past A or C is
// touched.
#pragma once

#include "kernels/intrinsics.h"

#include <algorithm>
#include <cstdint>

namespace ridge {

constexpr int kLanesAvx2 = 8;  // fp32 lanes of a ymm

// The first n of a ymm's 8 lanes, as vmaskmovps's mask (the sign bit of each 32-bit lane).
inline __m256i first_lanes_mask(int64_t n) {
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(std::clamp<int64_t>(n, 0, kLanesAvx2))), index);
}

// 8 fp32 values at p: whole (kFull) or the lanes in `rows`.
template <bool kFull>
inline __m256 load_rows(const float* p, __m256i rows) {
    return kFull ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, rows);
}
template <bool kFull>
inline void store_rows(float* p, __m256i rows, __m256 v) {
    if (kFull)
        _mm256_storeu_ps(p, v);
    else
        _mm256_maskstore_ps(p, rows, v);
}

// One vector of a column of C: C = alpha * acc + beta * C; beta == 0 never
// reads C (a NaN in it must not survive); beta == 1 (every k step after the
// first) is one FMA, with the same bits as through beta's multiply (exact).
template <bool kFull>
inline void update_vector(__m256 acc, __m256 valpha, __m256 vbeta, float beta, float* cv, __m256i rows) {
    __m256 r;
    if (beta == 0.0f)
        r = _mm256_mul_ps(valpha, acc);
    else if (beta == 1.0f)
        r = _mm256_fmadd_ps(valpha, acc, load_rows<kFull>(cv, rows));
    else
        r = _mm256_fmadd_ps(valpha, acc, _mm256_mul_ps(vbeta, load_rows<kFull>(cv, rows)));
    store_rows<kFull>(cv, rows, r);
}

}  // namespace ridge
