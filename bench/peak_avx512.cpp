// The fp32 FMA roof with zmm registers: 24 independent accumulators, so the
// loop is bound by FMA throughput (2 ports x 4-cycle latency needs >= 8).
#include <immintrin.h>

#include <cstdint>

#include "peak.h"

namespace ridge_bench {

double fma_flops_avx512(int64_t iterations) {
    constexpr int kAcc = 24;
    __m512 acc[kAcc];
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_set1_ps(float(i));
    const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
    for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 24
        for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    }
    __m512 sum = acc[0];
    for (int i = 1; i < kAcc; ++i) sum = _mm512_add_ps(sum, acc[i]);
    volatile float sink = _mm512_reduce_add_ps(sum);
    (void)sink;
    return double(iterations) * kAcc * 16 * 2;
}

}  // namespace ridge_bench
