// fp32 GEMM microkernel for AVX2 + FMA: a 16 x 6 register tile.
//
// Why 16 x 6: two 8-float A columns times 6 broadcast B values give 12
// independent ymm accumulators, above the 2 ports x 4-cycle latency = 8 that
// keep the FMA units busy (Low et al., TOMS 2016), and 12 + 2 (A) + 1 (B)
// leave one of the 16 ymm registers spare. BLIS's Haswell sgemm kernel has
// the same shape.
#include "kernels/intrinsics.h"

#include "kernels/gemm_kernel.h"

namespace ridge {

namespace {
constexpr int kMR = 16;
constexpr int kNR = 6;
constexpr int kPrefetchStepsA = 8;  // k steps ahead of the A micro-panel streaming from L2

// The tile: both entry points below.
[[gnu::always_inline]] inline void tile_16x6(int64_t kc, float alpha, const float* a_panel, const float* b_panel,
                                             float beta, float* c, int64_t ldc) {
    __m256 lo[kNR];  // rows 0-7 of each column of the tile
    __m256 hi[kNR];  // rows 8-15
#pragma GCC unroll 6
    for (int j = 0; j < kNR; ++j) {
        lo[j] = _mm256_setzero_ps();
        hi[j] = _mm256_setzero_ps();
        _mm_prefetch(reinterpret_cast<const char*>(c + j * ldc), _MM_HINT_T0);
    }

    const float* a = a_panel;
    const float* b = b_panel;
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p) {
        _mm_prefetch(reinterpret_cast<const char*>(a + kPrefetchStepsA * kMR), _MM_HINT_T0);
        const __m256 a_lo = _mm256_load_ps(a);
        const __m256 a_hi = _mm256_load_ps(a + 8);
#pragma GCC unroll 6
        for (int j = 0; j < kNR; ++j) {
            const __m256 bj = _mm256_broadcast_ss(b + j);
            lo[j] = _mm256_fmadd_ps(a_lo, bj, lo[j]);
            hi[j] = _mm256_fmadd_ps(a_hi, bj, hi[j]);
        }
        a += kMR;
        b += kNR;
    }

    const __m256 valpha = _mm256_set1_ps(alpha);
    if (beta == 0.0f) {  // C is not read: a NaN in C must not survive
#pragma GCC unroll 6
        for (int j = 0; j < kNR; ++j) {
            _mm256_storeu_ps(c + j * ldc, _mm256_mul_ps(valpha, lo[j]));
            _mm256_storeu_ps(c + j * ldc + 8, _mm256_mul_ps(valpha, hi[j]));
        }
    } else {
        const __m256 vbeta = _mm256_set1_ps(beta);
#pragma GCC unroll 6
        for (int j = 0; j < kNR; ++j) {
            float* cj = c + j * ldc;
            _mm256_storeu_ps(cj, _mm256_fmadd_ps(valpha, lo[j], _mm256_mul_ps(vbeta, _mm256_loadu_ps(cj))));
            _mm256_storeu_ps(cj + 8, _mm256_fmadd_ps(valpha, hi[j], _mm256_mul_ps(vbeta, _mm256_loadu_ps(cj + 8))));
        }
    }
}

}  // namespace

void ukr_f32_gemm_16x6__avx2(int64_t kc, float alpha, const void* a_packed, const void* b_packed,
                             float beta, float* c, int64_t ldc) {
    // fp32 panels (see the packers)
    tile_16x6(kc, alpha, static_cast<const float*>(a_packed), static_cast<const float*>(b_packed), beta, c, ldc);
}

void ukr_f32_gemm_16x6_tiles__avx2(int64_t tiles, int64_t kc, float alpha, const void* a_panels,
                                   int64_t a_panel_bytes, const void* b_panel, float beta, float* c, int64_t ldc,
                                   bool prefetch_next_c) {
    const auto* panel = static_cast<const char*>(a_panels);
    const auto* b = static_cast<const float*>(b_panel);
    for (int64_t t = 0; t < tiles; ++t, panel += a_panel_bytes, c += kMR) {
        if (prefetch_next_c)  // each column of the tile below is one line (16 floats)
            for (int j = 0; j < kNR; ++j) _mm_prefetch(reinterpret_cast<const char*>(c + kMR + j * ldc), _MM_HINT_T0);
        tile_16x6(kc, alpha, reinterpret_cast<const float*>(panel), b, beta, c, ldc);
    }
}

}  // namespace ridge
