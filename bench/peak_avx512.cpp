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

double read_bytes_avx512(const float* data, int64_t count) {
    // 4 independent sums of 16 lanes each: the adds never limit a read stream.
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
    for (; i + 64 <= count; i += 64) {
        s0 = _mm512_add_ps(s0, _mm512_loadu_ps(data + i));
        s1 = _mm512_add_ps(s1, _mm512_loadu_ps(data + i + 16));
        s2 = _mm512_add_ps(s2, _mm512_loadu_ps(data + i + 32));
        s3 = _mm512_add_ps(s3, _mm512_loadu_ps(data + i + 48));
    }
    volatile float sink = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    (void)sink;
    return double(i) * sizeof(float);
}

}  // namespace ridge_bench
