// Array conversions fp16 <-> fp32 with AVX-512F and F16C-in-zmm (vcvtph2ps,
// vcvtps2ph): exact widening, round-to-nearest-even narrowing, 16 at a time.
#include "kernels/intrinsics.h"

#include "kernels/avx512/lanes_avx512.h"

#include "kernels/convert_kernels.h"

namespace ridge {
namespace {
}  // namespace

void convert_f16_to_f32__avx512(int64_t n, const uint16_t* in, float* out) {
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = first_lanes(n - i);
        _mm512_mask_storeu_ps(out + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, in + i)));
    }
}

void convert_f32_to_f16__avx512(int64_t n, const float* in, uint16_t* out) {
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = first_lanes(n - i);
        const __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, in + i),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm256_mask_storeu_epi16(out + i, m, h);
    }
}

}  // namespace ridge
