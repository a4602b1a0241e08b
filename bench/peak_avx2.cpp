// The fp32 FMA roof with ymm registers: 12 independent accumulators.
#include <immintrin.h>

#include <cstdint>

#include "peak.h"

namespace ridge_bench {

double fma_flops_avx2(int64_t iterations) {
    constexpr int kAcc = 12;
    __m256 acc[kAcc];
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm256_set1_ps(float(i));
    const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
    for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
        for (int i = 0; i < kAcc; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    }
    __m256 sum = acc[0];
    for (int i = 1; i < kAcc; ++i) sum = _mm256_add_ps(sum, acc[i]);
    alignas(32) float out[8];
    _mm256_store_ps(out, sum);
    volatile float sink = out[0];
    (void)sink;
    return double(iterations) * kAcc * 8 * 2;
}

}  // namespace ridge_bench
