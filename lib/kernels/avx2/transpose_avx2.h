// In-register transpose of an 8 x 8 block of fp32 values: the AVX2 packer's
// (f32_pack_avx2.cpp) and C^T's transposing copy (f32_gemm_skinny_avx2.cpp).
// Header-only: included by kernel files compiled with AVX2 flags only.
#pragma once

#include "kernels/intrinsics.h"

namespace ridge {

// r[i] lane j becomes r[j] lane i: 4 x 2 blocks within 128-bit lanes (unpack,
// then shuffle into 4 x 4), then across the two halves (permute2f128).
inline void transpose_8x8(__m256 r[8]) {
    __m256 t[8], u[8];
    for (int g = 0; g < 2; ++g) {
        t[4 * g + 0] = _mm256_unpacklo_ps(r[4 * g], r[4 * g + 1]);
        t[4 * g + 1] = _mm256_unpackhi_ps(r[4 * g], r[4 * g + 1]);
        t[4 * g + 2] = _mm256_unpacklo_ps(r[4 * g + 2], r[4 * g + 3]);
        t[4 * g + 3] = _mm256_unpackhi_ps(r[4 * g + 2], r[4 * g + 3]);
        u[4 * g + 0] = _mm256_shuffle_ps(t[4 * g + 0], t[4 * g + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * g + 1] = _mm256_shuffle_ps(t[4 * g + 0], t[4 * g + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[4 * g + 2] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * g + 3] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int q = 0; q < 4; ++q) {
        r[q] = _mm256_permute2f128_ps(u[q], u[4 + q], 0x20);
        r[4 + q] = _mm256_permute2f128_ps(u[q], u[4 + q], 0x31);
    }
}

}  // namespace ridge
