// The bandwidth kernels of read_avx512.cpp and roofline_rw_avx512.cpp with ymm
// loads and stores, for CPUs without AVX-512 (bandwidth.cpp picks one).
#include <immintrin.h>

#include <cstdint>

#include "peak.h"
#include "roofline.h"

namespace ridge_bench {

double read_bytes_avx2(const float* data, int64_t count, int streams) {
    // 4 independent sums of 8 lanes each; 64 floats a step from each of the
    // `streams` segments in turn, as the zmm kernel.
    const int64_t segment = count / streams / 64 * 64;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t i = 0; i < segment; i += 64)
        for (int s = 0; s < streams; ++s)
            for (int64_t j = 0; j < 64; j += 32) {
                const float* p = data + s * segment + i + j;
                s0 = _mm256_add_ps(s0, _mm256_loadu_ps(p));
                s1 = _mm256_add_ps(s1, _mm256_loadu_ps(p + 8));
                s2 = _mm256_add_ps(s2, _mm256_loadu_ps(p + 16));
                s3 = _mm256_add_ps(s3, _mm256_loadu_ps(p + 24));
            }
    alignas(32) float out[8];
    _mm256_store_ps(out, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    volatile float sink = out[0];
    (void)sink;
    return double(segment) * streams * sizeof(float);
}

double read_write_bytes_avx2(float* data, int64_t count) {
    const __m256 sign = _mm256_set1_ps(-0.0f);  // a real modification, bounded over any number of passes
    int64_t i = 0;
    for (; i + 64 <= count; i += 64) {
        for (int64_t j = 0; j < 64; j += 8)
            _mm256_storeu_ps(data + i + j, _mm256_xor_ps(_mm256_loadu_ps(data + i + j), sign));
    }
    return 2.0 * double(i) * sizeof(float);
}

}  // namespace ridge_bench
