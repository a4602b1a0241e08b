// Throughput probe of vdpbf16ps (zmm): 24 independent accumulators. Its rate
// differs across CPUs that have it: two per cycle on AMD Zen 5 (twice the
// fp32 FMA's flops), one every two cycles on this project's Intel VM (half).
#include "kernels/intrinsics.h"

#include "kernels/probe.h"

namespace ridge {

double probe_dpbf16__avx512bf16(int64_t iterations) {
    constexpr int kAcc = 24;
    __m512 acc[kAcc];
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_set1_ps(float(i));
    const __m512bh x = (__m512bh)_mm512_set1_epi32(0x3f803f80);  // (1.0, 1.0)
    const __m512bh y = (__m512bh)_mm512_set1_epi32(0x33803380);  // (6e-8, 6e-8)
    for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 24
        for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], x, y);
    }
    __m512 sum = acc[0];
    for (int i = 1; i < kAcc; ++i) sum = _mm512_add_ps(sum, acc[i]);
    volatile float sink = _mm512_reduce_add_ps(sum);
    (void)sink;
    return double(iterations) * kAcc * 16 * 4;  // 16 lanes x 2 products x 2 flops
}

}  // namespace ridge
