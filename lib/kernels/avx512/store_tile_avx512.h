// The end of every AVX-512 microkernel with a 32-row tile: C = alpha * acc + beta * C,
// column by column, two zmm per column. Header-only, for kernel files compiled with AVX-512.
#pragma once

#include "kernels/intrinsics.h"

#include <cstdint>

namespace ridge {

// C += alpha * acc (beta = 1: every KC block after the first), every column of
// C loaded before any is stored. Column by column (load, add, store), each
// column's loads came after the stores to the column before, and where those
// lie a multiple of 4 KiB apart (ldc a multiple of 1024 floats) they waited on
// them (presumably the store-to-load check matching the low 12 address bits):
// the update took 168 TSC cycles per 32 x 12 tile at ldc 2048 against 83 at
// 2064 (2048^3, 1 thread, an rdtsc probe around it); loaded first, 139 against
// 74. Each sum takes its accumulator's register (the loads fold into the FMAs,
// no spills).
// Against column by column (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 11-31
// [TRANS [TYPE]]`): 2048^3 1.006-1.013, 2048 x 2048 x 640 1.009, 1024^3
// 1.012-1.019, TN / NT 1.010 / 1.008 at 1024^3, bf16 inputs (the bf16 kernel
// ends here too) 1.022 at 2048^3, 2 threads 1.014; where ldc is no such
// multiple 2064^3 1.004-1.006, 1536^3 1.001-1.004. (The rarer general beta keeps
// the column-by-column form: with it in this form too, GCC hoisted the loads of
// C above the test of beta and spilled them.)
template <int NR>
inline void add_to_tile_32xNR(const __m512 (&lo)[NR], const __m512 (&hi)[NR], __m512 valpha, float* c, int64_t ldc) {
    __m512 sum_lo[NR], sum_hi[NR];
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
        const float* cj = c + j * ldc;
        sum_lo[j] = _mm512_fmadd_ps(valpha, lo[j], _mm512_loadu_ps(cj));
        sum_hi[j] = _mm512_fmadd_ps(valpha, hi[j], _mm512_loadu_ps(cj + 16));
    }
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
        float* cj = c + j * ldc;
        _mm512_storeu_ps(cj, sum_lo[j]);
        _mm512_storeu_ps(cj + 16, sum_hi[j]);
    }
}

// lo[j], hi[j]: rows 0-15 and 16-31 of column j of the tile.
// beta == 0: C is written, never read (a NaN in C must not survive).
// alpha == 1 (the usual call) skips the multiply by alpha and beta == 1 (every
// KC block after the first) the multiply of C by beta; both are exact, so C
// comes out bit for bit as with the general formula. At short k the multiply
// is a real share of the FMA ports' work (24 vector operations against 24 x kc
// FMAs: 6% at kc = 16).
template <int NR>
inline void store_tile_32xNR(const __m512 (&lo)[NR], const __m512 (&hi)[NR], float alpha, float beta,
                             float* c, int64_t ldc) {
    const __m512 valpha = _mm512_set1_ps(alpha);
    const bool unit_alpha = alpha == 1.0f;
    if (beta == 0.0f) {
#pragma GCC unroll 16
        for (int j = 0; j < NR; ++j) {
            _mm512_storeu_ps(c + j * ldc, unit_alpha ? lo[j] : _mm512_mul_ps(valpha, lo[j]));
            _mm512_storeu_ps(c + j * ldc + 16, unit_alpha ? hi[j] : _mm512_mul_ps(valpha, hi[j]));
        }
    } else if (beta == 1.0f) {
        add_to_tile_32xNR<NR>(lo, hi, valpha, c, ldc);
    } else {
        const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 16
        for (int j = 0; j < NR; ++j) {
            float* cj = c + j * ldc;
            _mm512_storeu_ps(cj, _mm512_fmadd_ps(valpha, lo[j], _mm512_mul_ps(vbeta, _mm512_loadu_ps(cj))));
            _mm512_storeu_ps(cj + 16, _mm512_fmadd_ps(valpha, hi[j], _mm512_mul_ps(vbeta, _mm512_loadu_ps(cj + 16))));
        }
    }
}

// C = alpha * acc with non-temporal stores (C not read, beta taken as 0).
// Every column start c + j*ldc must be 64-byte aligned. The stores are weakly
// ordered: the caller fences before anyone else may read C.
template <int NR>
inline void stream_tile_32xNR(const __m512 (&lo)[NR], const __m512 (&hi)[NR], float alpha, float* c,
                              int64_t ldc) {
    const __m512 valpha = _mm512_set1_ps(alpha);
    const bool unit_alpha = alpha == 1.0f;  // exact: no multiply (see store_tile_32xNR)
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
        _mm512_stream_ps(c + j * ldc, unit_alpha ? lo[j] : _mm512_mul_ps(valpha, lo[j]));
        _mm512_stream_ps(c + j * ldc + 16, unit_alpha ? hi[j] : _mm512_mul_ps(valpha, hi[j]));
    }
}

}  // namespace ridge
