// Read bandwidth with zmm loads (the FMA roof's loop is the library's own
// probe, lib/kernels/avx512/f32_probe_avx512.cpp).
#include <immintrin.h>

#include <cstdint>

#include "peak.h"

namespace ridge_bench {

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
