// Throughput probe of the fp32 FMA (zmm), for choosing between kernels by
// measurement (see runtime_config.cpp): 24 independent accumulators, so the loop
// is bound by FMA throughput, not latency.
#include "kernels/intrinsics.h"

#include "kernels/probe.h"

namespace ridge {

double probe_fma_f32__avx512(int64_t iterations) {
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
    volatile float sink = _mm512_reduce_add_ps(sum);  // keeps the loop alive
    (void)sink;
    return double(iterations) * kAcc * 16 * 2;
}

}  // namespace ridge
