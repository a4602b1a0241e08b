// In-register transpose of a 16 x 16 block of 32-bit elements (fp32 values,
// or pairs of bf16 viewed as one 32-bit word), and the packers' store of
// transposed 12-row steps. Header-only: included by kernel files compiled with
// AVX-512 flags only.
#pragma once

#include "kernels/intrinsics.h"

namespace ridge {

// r[i] lane j becomes r[j] lane i. Three stages: 4x4 blocks inside each
// 128-bit lane (unpack + shuffle), then the 4x4 arrangement of 128-bit lanes
// across vectors (two shuffle_f32x4 steps). 48 shuffles for 256 elements.
inline void transpose_16x16(__m512 r[16]) {
    __m512 u[16];  // u[4g+q] lane L: rows 4g..4g+3 of column 4L+q
    for (int g = 0; g < 4; ++g) {
        const __m512 t0 = _mm512_unpacklo_ps(r[4 * g], r[4 * g + 1]);
        const __m512 t1 = _mm512_unpackhi_ps(r[4 * g], r[4 * g + 1]);
        const __m512 t2 = _mm512_unpacklo_ps(r[4 * g + 2], r[4 * g + 3]);
        const __m512 t3 = _mm512_unpackhi_ps(r[4 * g + 2], r[4 * g + 3]);
        u[4 * g + 0] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * g + 1] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
        u[4 * g + 2] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * g + 3] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int q = 0; q < 4; ++q) {
        const __m512 v0 = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 v1 = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(3, 2, 3, 2));
        const __m512 v2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 v3 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], _MM_SHUFFLE(3, 2, 3, 2));
        r[0 + q] = _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(2, 0, 2, 0));
        r[4 + q] = _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(3, 1, 3, 1));
        r[8 + q] = _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(2, 0, 2, 0));
        r[12 + q] = _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(3, 1, 3, 1));
    }
}

// 4 k steps of a 12-row panel (NR = 12: B's panels), each step's 12 values in
// lanes 0-11 of its vector (after transpose_16x16, or loaded so), are 48
// contiguous 32-bit words of the packed panel (fp32 values or bf16 pairs):
// written as 3 whole vectors, each two neighbouring steps joined by one
// two-source permute, not 4 masked stores of 12 lanes, half of which would
// straddle two cache lines.
inline void store_4_steps_of_12_rows(const __m512 step[4], void* dst) {
    float* d = static_cast<float*>(dst);
    const __m512i first = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19);
    const __m512i middle = _mm512_setr_epi32(4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23);
    const __m512i last = _mm512_setr_epi32(8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27);
    _mm512_storeu_ps(d, _mm512_permutex2var_ps(step[0], first, step[1]));
    _mm512_storeu_ps(d + 16, _mm512_permutex2var_ps(step[1], middle, step[2]));
    _mm512_storeu_ps(d + 32, _mm512_permutex2var_ps(step[2], last, step[3]));
}

// 16 k steps of 4 rows of a 12-row packed panel (rows r[0..3], each 16
// consecutive k steps), written at dst = the panel's step 0, row 4g: each
// step's 4 values go out as one 16-byte store, 12 floats apart. 8 in-lane
// shuffles and 16 stores (12 of them straight from a register's upper 128-bit
// lanes) instead of a full 16 x 16 transpose.
inline void store_16_steps_of_4_rows(const __m512 r[4], float* dst) {
    const __m512d lo01 = _mm512_castps_pd(_mm512_unpacklo_ps(r[0], r[1]));
    const __m512d hi01 = _mm512_castps_pd(_mm512_unpackhi_ps(r[0], r[1]));
    const __m512d lo23 = _mm512_castps_pd(_mm512_unpacklo_ps(r[2], r[3]));
    const __m512d hi23 = _mm512_castps_pd(_mm512_unpackhi_ps(r[2], r[3]));
    // step[q] lane L: the 4 rows at k step 4L + q
    const __m512 step[4] = {_mm512_castpd_ps(_mm512_unpacklo_pd(lo01, lo23)),
                            _mm512_castpd_ps(_mm512_unpackhi_pd(lo01, lo23)),
                            _mm512_castpd_ps(_mm512_unpacklo_pd(hi01, hi23)),
                            _mm512_castpd_ps(_mm512_unpackhi_pd(hi01, hi23))};
    for (int q = 0; q < 4; ++q) {
        _mm_storeu_ps(dst + q * 12, _mm512_castps512_ps128(step[q]));
        _mm_storeu_ps(dst + (4 + q) * 12, _mm512_extractf32x4_ps(step[q], 1));
        _mm_storeu_ps(dst + (8 + q) * 12, _mm512_extractf32x4_ps(step[q], 2));
        _mm_storeu_ps(dst + (12 + q) * 12, _mm512_extractf32x4_ps(step[q], 3));
    }
}

}  // namespace ridge
