// Read+write bandwidth with zmm loads and stores: every cache line is read,
// modified and written back in place, so the bytes moved are twice the buffer
// (the line is already owned when the store comes: no extra read for ownership).
#include <immintrin.h>

#include <cstdint>

#include "roofline.h"

namespace ridge_bench {

double read_write_bytes_avx512(float* data, int64_t count) {
    // Flipping the sign bit keeps the values bounded over any number of passes
    // and is a real modification the compiler cannot drop.
    const __m512 sign = _mm512_set1_ps(-0.0f);
    int64_t i = 0;
    for (; i + 64 <= count; i += 64) {
        const __m512 a = _mm512_loadu_ps(data + i), b = _mm512_loadu_ps(data + i + 16);
        const __m512 c = _mm512_loadu_ps(data + i + 32), d = _mm512_loadu_ps(data + i + 48);
        _mm512_storeu_ps(data + i, _mm512_xor_ps(a, sign));
        _mm512_storeu_ps(data + i + 16, _mm512_xor_ps(b, sign));
        _mm512_storeu_ps(data + i + 32, _mm512_xor_ps(c, sign));
        _mm512_storeu_ps(data + i + 48, _mm512_xor_ps(d, sign));
    }
    return 2.0 * double(i) * sizeof(float);
}

}  // namespace ridge_bench
