// Read bandwidth with zmm loads (the FMA roof's loop is the library's own
// probe, lib/kernels/avx512/f32_probe_avx512.cpp).
#include <immintrin.h>

#include <cstdint>

#include "peak.h"

namespace ridge_bench {

double read_bytes_avx512(const float* data, int64_t count, int streams) {
    // 4 independent sums of 16 lanes each: the adds never limit a read stream.
    // The buffer as `streams` equal segments read side by side, 256 bytes from
    // each in turn (peak.h: why a read roof tries several).
    const int64_t segment = count / streams / 64 * 64;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t i = 0; i < segment; i += 64)
        for (int s = 0; s < streams; ++s) {
            const float* p = data + s * segment + i;
            s0 = _mm512_add_ps(s0, _mm512_loadu_ps(p));
            s1 = _mm512_add_ps(s1, _mm512_loadu_ps(p + 16));
            s2 = _mm512_add_ps(s2, _mm512_loadu_ps(p + 32));
            s3 = _mm512_add_ps(s3, _mm512_loadu_ps(p + 48));
        }
    volatile float sink = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    (void)sink;
    return double(segment) * streams * sizeof(float);
}

}  // namespace ridge_bench
