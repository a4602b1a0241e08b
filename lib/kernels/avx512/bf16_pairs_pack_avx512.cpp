// AVX-512 packing of one bf16 panel into K-pairs for the vdpbf16ps kernel
// (see PackPanel in gemm_kernel.h): each packed 32-bit word holds X(i, p) in
// its low half and X(i, p+1) in its high half, for even p; a zero stands in
// for the missing half of an odd kc. vdpbf16ps multiplies such words pairwise.
#include "kernels/intrinsics.h"

#include <algorithm>

#include "kernels/avx512/transpose_avx512.h"
#include "kernels/avx512/lanes_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {


// Each k step is a contiguous run of rows: zero-extend two k steps of 16 rows
// to 32 bits and merge them as (p, p+1) pairs. A whole panel (rows == width, a
// multiple of 16, an even number of steps left) loads and stores without masks,
// as the fp32 packer does (pack_to_f32_avx512.cpp).
void pack_pairs_rows_contiguous(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc,
                                int64_t width, uint32_t* dst) {
    const bool whole_rows = rows == width && width % 16 == 0;
    for (int64_t p = 0; p < kc; p += 2) {
        const uint16_t* even = src + p * ld;
        const uint16_t* odd = even + ld;
        uint32_t* d = dst + (p / 2) * width;
        const bool whole = whole_rows && p + 1 < kc;
        for (int64_t i = 0; i < width; i += 16) {
            if (whole) {
                const auto* e = reinterpret_cast<const __m256i*>(even + i);
                const auto* o = reinterpret_cast<const __m256i*>(odd + i);
                const __m512i lo = _mm512_cvtepu16_epi32(_mm256_loadu_si256(e));
                const __m512i hi = _mm512_cvtepu16_epi32(_mm256_loadu_si256(o));
                _mm512_storeu_si512(d + i, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
                continue;
            }
            const __mmask16 live = first_lanes(rows - i);
            const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(live, even + i));
            const __m512i hi = p + 1 < kc
                                   ? _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(live, odd + i))
                                   : _mm512_setzero_si512();
            _mm512_mask_storeu_epi32(d + i, first_lanes(width - i), _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
        }
    }
}

// Each row is contiguous along k, so a (p, p+1) pair is already one 32-bit
// word in memory: 16 rows x 16 pairs load as 16 vectors and transpose like
// fp32, and as there each block prefetches the next panel's rows and a
// 12-row panel's pairs go out as whole vectors (pack_to_f32_avx512.cpp).
void pack_pairs_rows_strided(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc,
                             int64_t width, uint32_t* dst) {
    for (int64_t i0 = 0; i0 < width; i0 += 16) {
        const __mmask16 store_lanes = first_lanes(width - i0);
        const int64_t group_rows = std::min<int64_t>(16, rows - i0);
        for (int64_t p0 = 0; p0 < kc; p0 += 32) {  // 32 k steps = 16 pairs at a time
            const __mmask32 load_halves = first_lanes32(kc - p0);
            const bool whole_steps = kc - p0 >= 32;
            __m512 r[16];
            for (int i = 0; i < group_rows; ++i)
                _mm_prefetch(reinterpret_cast<const char*>(src + (i0 + i + width) * ld + p0), _MM_HINT_T0);
            for (int i = 0; i < 16; ++i) {
                const uint16_t* s = src + (i0 + i) * ld + p0;
                r[i] = i >= group_rows ? _mm512_setzero_ps()
                       : whole_steps   ? _mm512_loadu_ps(s)
                                       : _mm512_castsi512_ps(_mm512_maskz_loadu_epi16(load_halves, s));
            }
            transpose_16x16(r);
            if (width == 12 && whole_steps) {
                for (int g = 0; g < 4; ++g) store_4_steps_of_12_rows(r + 4 * g, dst + (p0 / 2 + 4 * g) * width);
                continue;
            }
            const int64_t pairs = std::min<int64_t>(16, (kc - p0 + 1) / 2);
            for (int64_t t = 0; t < pairs; ++t)
                _mm512_mask_storeu_epi32(dst + (p0 / 2 + t) * width + i0, store_lanes,
                                         _mm512_castps_si512(r[t]));
        }
    }
}

}  // namespace

void pack_panel_bf16_pairs__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                   int64_t kc, int64_t width, void* dst) {
    const auto* s = static_cast<const uint16_t*>(src);
    auto* d = static_cast<uint32_t*>(dst);
    if (rows_contiguous)
        pack_pairs_rows_contiguous(s, ld, rows, kc, width, d);
    else
        pack_pairs_rows_strided(s, ld, rows, kc, width, d);
}

}  // namespace ridge
