// AVX-512 packing of one panel into fp32 (see PackPanel in gemm_kernel.h),
// from fp32, fp16 (F16C's vcvtph2ps, exact) or bf16 (a 16-bit shift, exact)
// sources: the conversion happens here, once per packed element, so the fp32
// microkernel runs unchanged on 16-bit inputs.
//
// Rows contiguous (A not transposed, B transposed): each k step is one or two
// masked 16-float loads and stores. Rows strided (A transposed, B not
// transposed, the common NN case for B): 16 rows x 16 k steps are loaded as
// 16 vectors and transposed in registers, so every load and store is a full
// vector instead of one float at a time.
#include <immintrin.h>

#include <algorithm>

#include "kernels/avx512/transpose_avx512.h"
#include "kernels/avx512/lanes_avx512.h"
#include "kernels/avx512/load_to_f32_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

template <typename Load>
void pack_rows_contiguous(const typename Load::T* src, int64_t ld, int64_t rows, int64_t kc,
                          int64_t width, float* dst) {
    for (int64_t p = 0; p < kc; ++p) {
        const typename Load::T* s = src + p * ld;
        float* d = dst + p * width;
        for (int64_t i = 0; i < width; i += 16) {
            const __m512 v = Load::template load<false>(s + i, first_lanes(std::max<int64_t>(0, rows - i)));
            _mm512_mask_storeu_ps(d + i, first_lanes(width - i), v);
        }
    }
}

template <typename Load>
void pack_rows_strided(const typename Load::T* src, int64_t ld, int64_t rows, int64_t kc,
                       int64_t width, float* dst) {
    for (int64_t i0 = 0; i0 < width; i0 += 16) {  // 16 rows of the panel at a time
        const __mmask16 store_lanes = first_lanes(width - i0);
        for (int64_t p0 = 0; p0 < kc; p0 += 16) {  // 16 k steps at a time
            const int64_t steps = std::min<int64_t>(16, kc - p0);
            const __mmask16 load_lanes = first_lanes(steps);
            __m512 r[16];
            for (int i = 0; i < 16; ++i)
                r[i] = i0 + i < rows ? Load::template load<false>(src + (i0 + i) * ld + p0, load_lanes)
                                     : _mm512_setzero_ps();
            transpose_16x16(r);
            for (int64_t t = 0; t < steps; ++t)
                _mm512_mask_storeu_ps(dst + (p0 + t) * width + i0, store_lanes, r[t]);
        }
    }
}

template <typename Load>
void pack_to_f32(const void* src, int64_t ld, bool rows_contiguous, int64_t rows, int64_t kc,
                 int64_t width, void* dst) {
    const auto* s = static_cast<const typename Load::T*>(src);
    float* d = static_cast<float*>(dst);
    if (rows_contiguous)
        pack_rows_contiguous<Load>(s, ld, rows, kc, width, d);
    else
        pack_rows_strided<Load>(s, ld, rows, kc, width, d);
}

}  // namespace

void pack_panel_f32__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                            int64_t kc, int64_t width, void* dst) {
    pack_to_f32<LoadF32>(src, ld, rows_contiguous, rows, kc, width, dst);
}

void pack_panel_f16_to_f32__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                   int64_t kc, int64_t width, void* dst) {
    pack_to_f32<LoadF16>(src, ld, rows_contiguous, rows, kc, width, dst);
}

void pack_panel_bf16_to_f32__avx512(const void* src, int64_t ld, bool rows_contiguous,
                                    int64_t rows, int64_t kc, int64_t width, void* dst) {
    pack_to_f32<LoadBF16>(src, ld, rows_contiguous, rows, kc, width, dst);
}

}  // namespace ridge
