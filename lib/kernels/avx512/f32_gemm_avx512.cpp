// fp32 GEMM microkernel for AVX-512F: a 32 x 12 register tile.
//
// Why 32 x 12: each k step loads two 16-float columns of A and broadcasts 12
// values of B, then issues 24 independent FMAs into 24 zmm accumulators.
// With 2 FMA ports and a 4-cycle FMA latency a core needs at least 8
// independent accumulators to keep both ports busy (Low et al., TOMS 2016);
// 24 also hides load latency, and 24 + 2 (A) + 1 (B broadcast) fit in the 32
// zmm registers. Per k step: 24 FMAs against 2 vector loads and 12 broadcasts,
// well within two load ports. (BLIS's skx sgemm kernel uses the same shape.)
#include <immintrin.h>

#include "kernels/avx512/store_tile_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {

namespace {
constexpr int kMR = 32;
constexpr int kNR = 12;
// How far ahead (in k steps) to prefetch the A micro-panel, which streams from L2.
constexpr int kPrefetchStepsA = 8;
}  // namespace

void ukr_f32_gemm_32x12__avx512(int64_t kc, float alpha, const void* a_packed, const void* b_packed,
                                float beta, float* c, int64_t ldc) {
    const float* a_panel = static_cast<const float*>(a_packed);  // fp32 panels (see the packers)
    const float* b_panel = static_cast<const float*>(b_packed);
    __m512 lo[kNR];  // rows 0-15 of each column of the tile
    __m512 hi[kNR];  // rows 16-31
#pragma GCC unroll 12
    for (int j = 0; j < kNR; ++j) {
        lo[j] = _mm512_setzero_ps();
        hi[j] = _mm512_setzero_ps();
        // The tile of C is needed at the end: start bringing its 2 lines per column in now.
        _mm_prefetch(reinterpret_cast<const char*>(c + j * ldc), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(c + j * ldc + 16), _MM_HINT_T0);
    }

    const float* a = a_panel;
    const float* b = b_panel;
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p) {
        _mm_prefetch(reinterpret_cast<const char*>(a + kPrefetchStepsA * kMR), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(a + kPrefetchStepsA * kMR + 16), _MM_HINT_T0);
        const __m512 a_lo = _mm512_load_ps(a);
        const __m512 a_hi = _mm512_load_ps(a + 16);
#pragma GCC unroll 12
        for (int j = 0; j < kNR; ++j) {
            const __m512 bj = _mm512_set1_ps(b[j]);
            lo[j] = _mm512_fmadd_ps(a_lo, bj, lo[j]);
            hi[j] = _mm512_fmadd_ps(a_hi, bj, hi[j]);
        }
        a += kMR;
        b += kNR;
    }

    store_tile_32xNR<kNR>(lo, hi, alpha, beta, c, ldc);
}

}  // namespace ridge
