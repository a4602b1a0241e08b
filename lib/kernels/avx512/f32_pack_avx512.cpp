// AVX-512 packing of one fp32 panel (see PackPanelF32 in gemm_kernel.h).
//
// Rows contiguous (A not transposed, B transposed): each k step is one or two
// masked 16-float loads and stores. Rows strided (A transposed, B not
// transposed, the common NN case for B): 16 rows x 16 k steps are loaded as
// 16 vectors and transposed in registers, so every load and store is a full
// vector instead of one float at a time.
#include <immintrin.h>

#include <algorithm>

#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

__mmask16 first_lanes(int64_t n) { return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u); }

// In-register transpose of a 16 x 16 block: r[i] lane j becomes r[j] lane i.
// Three stages: 4x4 blocks inside each 128-bit lane (unpack + shuffle), then
// the 4x4 arrangement of 128-bit lanes across vectors (two shuffle_f32x4 steps).
void transpose_16x16(__m512 r[16]) {
    __m512 u[16];  // u[4g+q] lane L: rows 4g..4g+3 of column 4L+q
    for (int g = 0; g < 4; ++g) {
        const __m512 t0 = _mm512_unpacklo_ps(r[4 * g], r[4 * g + 1]);
        const __m512 t1 = _mm512_unpackhi_ps(r[4 * g], r[4 * g + 1]);
        const __m512 t2 = _mm512_unpacklo_ps(r[4 * g + 2], r[4 * g + 3]);
        const __m512 t3 = _mm512_unpackhi_ps(r[4 * g + 2], r[4 * g + 3]);
        u[4 * g + 0] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * g + 1] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
        u[4 * g + 2] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * g + 3] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int q = 0; q < 4; ++q) {
        const __m512 v0 = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 v1 = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(3, 2, 3, 2));
        const __m512 v2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 v3 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], _MM_SHUFFLE(3, 2, 3, 2));
        r[0 + q] = _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(2, 0, 2, 0));
        r[4 + q] = _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(3, 1, 3, 1));
        r[8 + q] = _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(2, 0, 2, 0));
        r[12 + q] = _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(3, 1, 3, 1));
    }
}

void pack_rows_contiguous(const float* src, int64_t ld, int64_t rows, int64_t kc, int64_t width,
                          float* dst) {
    for (int64_t p = 0; p < kc; ++p) {
        const float* s = src + p * ld;
        float* d = dst + p * width;
        for (int64_t i = 0; i < width; i += 16) {
            const __m512 v = _mm512_maskz_loadu_ps(first_lanes(std::max<int64_t>(0, rows - i)), s + i);
            _mm512_mask_storeu_ps(d + i, first_lanes(width - i), v);
        }
    }
}

void pack_rows_strided(const float* src, int64_t ld, int64_t rows, int64_t kc, int64_t width,
                       float* dst) {
    for (int64_t i0 = 0; i0 < width; i0 += 16) {  // 16 rows of the panel at a time
        const __mmask16 store_lanes = first_lanes(width - i0);
        for (int64_t p0 = 0; p0 < kc; p0 += 16) {  // 16 k steps at a time
            const int64_t steps = std::min<int64_t>(16, kc - p0);
            const __mmask16 load_lanes = first_lanes(steps);
            __m512 r[16];
            for (int i = 0; i < 16; ++i)
                r[i] = i0 + i < rows ? _mm512_maskz_loadu_ps(load_lanes, src + (i0 + i) * ld + p0)
                                     : _mm512_setzero_ps();
            transpose_16x16(r);
            for (int64_t t = 0; t < steps; ++t)
                _mm512_mask_storeu_ps(dst + (p0 + t) * width + i0, store_lanes, r[t]);
        }
    }
}

}  // namespace

void pack_panel_f32__avx512(const float* src, int64_t ld, bool rows_contiguous, int64_t rows,
                            int64_t kc, int64_t width, float* dst) {
    if (rows_contiguous)
        pack_rows_contiguous(src, ld, rows, kc, width, dst);
    else
        pack_rows_strided(src, ld, rows, kc, width, dst);
}

}  // namespace ridge
