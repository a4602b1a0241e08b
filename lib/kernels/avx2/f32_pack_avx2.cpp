// AVX2 packing of one fp32 panel (see PackPanel in gemm_kernel.h): the
// AVX-512 packer's structure (f32 parts of pack_to_f32_avx512.cpp) with 8-lane
// vectors: copies when each k step is a contiguous run of rows, 8 x 8
// in-register transposes when each row is contiguous along k; masks only
// where a load or store would otherwise cross the panel's or source's end.
#include "kernels/intrinsics.h"

#include <algorithm>

#include "kernels/avx2/lanes_avx2.h"
#include "kernels/avx2/transpose_avx2.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

// Masked stores (vmaskmovps) are the slow part of packing on AMD's cores, and a
// panel narrower than a multiple of 8 (the 6-row B panels) would need one per
// k step. Instead each step's 8 lanes are stored whole, in order: the lanes
// past `width` (zeros) land on the next step's first lanes, which that step's
// store then overwrites. Only the panel's last step, whose extra lanes would
// land past the panel, goes through the mask.
void store_step(float* d, int64_t p, int64_t kc, int64_t width, int64_t i0, __m256i lanes, __m256 v) {
    if (p + 1 < kc || i0 + 8 <= width)
        _mm256_storeu_ps(d, v);
    else
        _mm256_maskstore_ps(d, lanes, v);
}

// A whole panel (rows == width, a multiple of 8: A's 16-row panels): plain
// loads and stores, no masks or per-store tests (the AVX-512 packer's
// pack_whole_rows_contiguous, for the same reason).
void pack_whole_rows_contiguous(const float* src, int64_t ld, int64_t kc, int64_t width, float* dst) {
    for (int64_t p = 0; p < kc; ++p) {
        const float* s = src + p * ld;
        float* d = dst + p * width;
        for (int64_t i = 0; i < width; i += 8) _mm256_storeu_ps(d + i, _mm256_loadu_ps(s + i));
    }
}

void pack_rows_contiguous(const float* src, int64_t ld, int64_t rows, int64_t kc, int64_t width, float* dst) {
    if (rows == width && width % 8 == 0) return pack_whole_rows_contiguous(src, ld, kc, width, dst);
    for (int64_t p = 0; p < kc; ++p) {
        const float* s = src + p * ld;
        float* d = dst + p * width;
        for (int64_t i = 0; i < width; i += 8) {
            const __m256 v = _mm256_maskload_ps(s + i, first_lanes_mask(rows - i));
            store_step(d + i, p, kc, width, i, first_lanes_mask(width - i), v);
        }
    }
}

void pack_rows_strided(const float* src, int64_t ld, int64_t rows, int64_t kc, int64_t width, float* dst) {
    for (int64_t i0 = 0; i0 < width; i0 += 8) {  // 8 rows of the panel at a time
        const __m256i store_lanes = first_lanes_mask(width - i0);
        for (int64_t p0 = 0; p0 < kc; p0 += 8) {  // 8 k steps at a time
            const int64_t steps = std::min<int64_t>(8, kc - p0);
            const __m256i load_lanes = first_lanes_mask(steps);
            __m256 r[8];
            for (int i = 0; i < 8; ++i) {
                const float* s = src + (i0 + i) * ld + p0;
                r[i] = i0 + i >= rows ? _mm256_setzero_ps()
                       : steps == 8   ? _mm256_loadu_ps(s)
                                      : _mm256_maskload_ps(s, load_lanes);
            }
            transpose_8x8(r);
            // A partial group after the first would spill onto the next step's
            // first group, already written (groups are the outer loop): masked.
            const bool spill_on_written = i0 > 0 && i0 + 8 > width;
            for (int64_t t = 0; t < steps; ++t) {
                float* d = dst + (p0 + t) * width + i0;
                if (spill_on_written)
                    _mm256_maskstore_ps(d, store_lanes, r[t]);
                else
                    store_step(d, p0 + t, kc, width, i0, store_lanes, r[t]);
            }
        }
    }
}

}  // namespace

void pack_panel_f32__avx2(const void* src, int64_t ld, bool rows_contiguous, int64_t rows, int64_t kc,
                          int64_t width, void* dst) {
    const float* s = static_cast<const float*>(src);
    float* d = static_cast<float*>(dst);
    if (rows_contiguous)
        pack_rows_contiguous(s, ld, rows, kc, width, d);
    else
        pack_rows_strided(s, ld, rows, kc, width, d);
}

}  // namespace ridge
