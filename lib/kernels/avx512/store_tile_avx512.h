// The end of every AVX-512 microkernel with a 32-row tile: C = alpha * acc + beta * C,
// column by column, two zmm per column. Header-only, for kernel files compiled with AVX-512.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace ridge {

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
#pragma GCC unroll 16
        for (int j = 0; j < NR; ++j) {
            float* cj = c + j * ldc;
            _mm512_storeu_ps(cj, _mm512_fmadd_ps(valpha, lo[j], _mm512_loadu_ps(cj)));
            _mm512_storeu_ps(cj + 16, _mm512_fmadd_ps(valpha, hi[j], _mm512_loadu_ps(cj + 16)));
        }
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
