// bf16 skinny kernel (few columns of C: decode) on AVX-512F: the tile of
// skinny_tile_avx512.h with A widened to fp32 as it is loaded (exact; bf16
// subnormals are honoured, as on every converting path). A streams from
// memory at half the bytes of fp32; the FMAs are the fp32 kernel's.
//
// How A is widened: a k step's 32 rows are one 64-byte load, 16 dwords each
// holding two rows (row 2i in the low half, 2i+1 in the high half). bf16 is
// fp32's top half, so a dword shifted left by 16 is row 2i as fp32 and the
// dword with its low half cleared is row 2i+1: two one-uop instructions per
// 32 rows. Widening rows 0-15 and 16-31 in order (zero-extend, then shift)
// takes four, and every one of them issues on the ports the FMAs use: at 12
// columns a k step is 24 FMAs, so the in-order widening cost a sixth of the
// FMA slots where this costs a twelfth. The accumulators then hold the even
// and the odd rows; to_row_order interleaves them back once per call (two
// permutes per column against 24 x kc FMAs). Each element of C gets the same
// FMAs in the same order as in row order, so C is bit for bit the same.
#include "kernels/avx512/skinny_tall_tile_avx512.h"
#include "kernels/avx512/skinny_tile_avx512.h"

namespace ridge {
namespace {

struct Bf16RowsEvenOdd {
    using T = uint16_t;
    static constexpr int kBytes = 2;
    // even: rows 0, 2, .., 30; odd: rows 1, 3, .., 31 (lane i holds rows 2i, 2i + 1).
    template <bool kFull>
    static void load(const uint16_t* p, __mmask16 mask_lo, __mmask16 mask_hi, __m512& even, __m512& odd) {
        const __mmask32 rows = __mmask32(mask_lo) | (__mmask32(mask_hi) << 16);
        const __m512i pairs = kFull ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi16(rows, p);
        even = _mm512_castsi512_ps(_mm512_slli_epi32(pairs, 16));
        odd = _mm512_castsi512_ps(_mm512_and_si512(pairs, _mm512_set1_epi32(int(0xffff0000u))));
    }
    // even/odd back to rows 0-15 / 16-31: row r is lane r / 2 of even (r even)
    // or of odd (r odd); permutex2var's index picks the second source at 16 + lane.
    template <int NR>
    static void to_row_order(__m512 (&even)[NR], __m512 (&odd)[NR]) {
        const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        const __m512i pick = _mm512_add_epi32(_mm512_srli_epi32(lane, 1),                       // lane / 2
                                              _mm512_slli_epi32(_mm512_and_si512(lane, _mm512_set1_epi32(1)), 4));
        const __m512i pick_hi = _mm512_add_epi32(pick, _mm512_set1_epi32(8));
#pragma GCC unroll 12
        for (int j = 0; j < NR; ++j) {
            const __m512 rows_lo = _mm512_permutex2var_ps(even[j], pick, odd[j]);
            const __m512 rows_hi = _mm512_permutex2var_ps(even[j], pick_hi, odd[j]);
            even[j] = rows_lo;
            odd[j] = rows_hi;
        }
    }
};

}  // namespace

void ukr_bf16_gemm_skinny_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                        int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                        int64_t ldc, SkinnyPrefetch next) {
    skinny_kernel<Bf16RowsEvenOdd>(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}

void ukr_bf16_gemm_skinny_48x8__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                       int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                       int64_t ldc, SkinnyPrefetch next) {
    skinny_tall_kernel<LoadBF16>(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}

}  // namespace ridge
