// The skinny kernel (few columns of C: decode), AVX-512F, for A in any
// input type: an mr x nr tile (mr <= 32, nr <= 12) of C from A read in place
// (each element converted to fp32 as it is loaded, by `Rows`) and a short
// k-major chunk of fp32 B. Header-only: each input type's kernel file
// (<dtype>_gemm_skinny_avx512.cpp) instantiates it with its loader.
//
// The skinny driver (gemm_skinny.cpp) streams A once from memory in chunks of
// a few columns; each call covers one chunk, so the per-call work is small and
// the loop must carry nothing but the FMAs. B's chunk is copied k-major (row p
// of op(B) contiguous) by the driver, so the nr broadcasts of a k step sit at
// fixed offsets from one pointer: addressing B in place at a column stride
// needs one register per column, and at 12 columns the compiler spills them
// (measured: the in-place kernel reached half the FMA peak in L2, 114-125
// GFLOP/s at 512 x 16..64 x 512). The register tile is the 32 x 12 kernel's
// (f32_gemm_avx512.cpp): 24 accumulators, two A vectors, one broadcast.
// Rows past mr are masked off; columns past nr are never computed (one
// instance per nr, so a 16-column problem runs as two 8-column tiles, not 12 + 4).
#pragma once

#include "kernels/intrinsics.h"

#include <type_traits>

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/avx512/load_to_f32_avx512.h"
#include "kernels/gemm_kernel.h"
#include "kernels/skinny_prefetch.h"

namespace ridge {
// Internal linkage: each kernel file gets its own copy (all compiled with the
// same AVX-512 flags; nothing here is shared across ISAs).
namespace {

constexpr int kMR = 32;
constexpr int kNR = 12;

// How a k step's 32 rows of A become two fp32 vectors, and which rows their
// lanes hold. RowsInOrder: rows 0-15 and 16-31, each element widened by Load
// (a plain load for fp32). A loader whose lanes hold the rows in another order
// (bf16_gemm_skinny_avx512.cpp) puts the accumulators back in row order in
// to_row_order, once per call, before C is touched.
template <typename Load>
struct RowsInOrder {
    using T = typename Load::T;
    static constexpr int kBytes = Load::kBytes;
    static constexpr bool kFirstVectorIsRows0To15 = true;  // a tile of <= 16 rows needs one vector
    static __m512 load_first(const T* p, __mmask16 mask) { return Load::template load<false>(p, mask); }
    template <bool kFull>
    static void load(const T* p, __mmask16 mask_lo, __mmask16 mask_hi, __m512& first, __m512& second) {
        first = Load::template load<kFull>(p, mask_lo);
        second = Load::template load<kFull>(p + 16, mask_hi);
    }
    template <int NR>
    static void to_row_order(__m512 (&)[NR], __m512 (&)[NR]) {}
};

// The spread prefetch of a column of kRows rows of T: the one, two or three lines they span.
template <typename T, int kRows>
using SpreadPrefetchRows = std::conditional_t<
    kRows * sizeof(T) <= 64, SpreadPrefetch<3, 0>,
    std::conditional_t<kRows * sizeof(T) <= 128, SpreadPrefetch<3, 0, 64>, SpreadPrefetch<3, 0, 64, 128>>>;

// The tile's accumulators: lo[j] and hi[j] hold column j's rows as Rows's
// two vectors do (rows 0-15 and 16-31 for RowsInOrder).
// kMode: also bring in next's kPrefetchRows rows (the tile the driver computes
// next: 32 rows for this kernel, 48 where the tall kernel runs its tiles of
// at most 32 rows here) as skinny_prefetch.h says, into L1: whole columns, the
// lines of those rows per k step.
template <typename Rows, int NR, PrefetchMode kMode, bool kFull, int kPrefetchRows>
inline void accumulate(int64_t kc, const typename Rows::T* a, int64_t lda, const float* b, int64_t b_step,
                       SkinnyPrefetch next, __mmask16 mask_lo, __mmask16 mask_hi, __m512 (&lo)[NR],
                       __m512 (&hi)[NR]) {
    const auto* a_next = static_cast<const typename Rows::T*>(next.a);
    SpreadPrefetchRows<typename Rows::T, kPrefetchRows> spread(next, lda * Rows::kBytes);
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) {
        lo[j] = _mm512_setzero_ps();
        hi[j] = _mm512_setzero_ps();
    }
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p) {
        if constexpr (kMode == PrefetchMode::whole_columns)
            for (int line = 0; line < kPrefetchRows * Rows::kBytes; line += 64)
                _mm_prefetch(reinterpret_cast<const char*>(a_next + p * lda) + line, _MM_HINT_T0);
        if constexpr (kMode == PrefetchMode::spread) spread.step();
        __m512 a_lo, a_hi;
        Rows::template load<kFull>(a + p * lda, mask_lo, mask_hi, a_lo, a_hi);
#pragma GCC unroll 12
        for (int j = 0; j < NR; ++j) {
            const __m512 bj = _mm512_set1_ps(b[j]);
            lo[j] = _mm512_fmadd_ps(a_lo, bj, lo[j]);
            hi[j] = _mm512_fmadd_ps(a_hi, bj, hi[j]);
        }
        b += b_step;
    }
    if constexpr (kMode == PrefetchMode::spread) spread.finish();
}

// One vector of a column, 16 rows at cv (the lanes in mask unless kFull):
// C = alpha * acc + beta * C; beta == 0 never reads C (a NaN in it must not
// survive); beta == 1, every chunk after the first, is one FMA per vector.
template <bool kFull>
inline void update_vector(__m512 acc, __m512 valpha, __m512 vbeta, float beta, float* cv, __mmask16 mask) {
    __m512 r;
    if (beta == 0.0f)
        r = _mm512_mul_ps(valpha, acc);
    else if (beta == 1.0f)
        r = _mm512_fmadd_ps(valpha, acc, load_lanes<kFull>(cv, mask));
    else
        r = _mm512_fmadd_ps(valpha, acc, _mm512_mul_ps(vbeta, load_lanes<kFull>(cv, mask)));
    store_lanes<kFull>(cv, mask, r);
}

// The tile's columns, two vectors each.
template <int NR, bool kFull>
inline void update_c(const __m512 (&lo)[NR], const __m512 (&hi)[NR], float alpha, float beta, float* c,
                     int64_t ldc, __mmask16 mask_lo, __mmask16 mask_hi) {
    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) {
        update_vector<kFull>(lo[j], valpha, vbeta, beta, c + j * ldc, mask_lo);
        update_vector<kFull>(hi[j], valpha, vbeta, beta, c + j * ldc + 16, mask_hi);
    }
}

template <typename Rows, int NR, bool kFull, int kPrefetchRows>
void skinny_tile(int64_t kc, float alpha, const void* a, int64_t lda, const float* b, int64_t b_step, float beta,
                 float* c, int64_t ldc, SkinnyPrefetch next, __mmask16 mask_lo, __mmask16 mask_hi) {
    using T = typename Rows::T;
    const T* at = static_cast<const T*>(a);
    __m512 lo[NR];
    __m512 hi[NR];
    switch (prefetch_mode(next)) {
        case PrefetchMode::none:
            accumulate<Rows, NR, PrefetchMode::none, kFull, kPrefetchRows>(kc, at, lda, b, b_step, next, mask_lo,
                                                                           mask_hi, lo, hi);
            break;
        case PrefetchMode::whole_columns:
            accumulate<Rows, NR, PrefetchMode::whole_columns, kFull, kPrefetchRows>(kc, at, lda, b, b_step, next,
                                                                                    mask_lo, mask_hi, lo, hi);
            break;
        case PrefetchMode::spread:
            accumulate<Rows, NR, PrefetchMode::spread, kFull, kPrefetchRows>(kc, at, lda, b, b_step, next, mask_lo,
                                                                             mask_hi, lo, hi);
            break;
    }
    Rows::to_row_order(lo, hi);
    update_c<NR, kFull>(lo, hi, alpha, beta, c, ldc, mask_lo, mask_hi);
}

// A tile of at most 16 rows, where Rows keeps rows 0-15 in its first vector:
// the second vector's FMAs would all go to lanes that are never stored, so
// they are not issued (half the FMAs). The kept lanes see the same FMAs in the
// same order as in skinny_tile, and C the same update: bit for bit its result.
// (A 300-row block's last 12 rows took 9% of a 300 x 4096 x 4096 call, a whole
// 32-row tile's time, for 4% of its flops.) It prefetches the next tile's
// kPrefetchRows rows, as skinny_tile does.
template <typename Rows, int NR, int kPrefetchRows>
void skinny_tile_16_rows(int64_t kc, float alpha, const void* a, int64_t lda, const float* b, int64_t b_step,
                         float beta, float* c, int64_t ldc, SkinnyPrefetch next, __mmask16 mask_lo, __mmask16) {
    using T = typename Rows::T;
    const T* at = static_cast<const T*>(a);
    const T* a_next = static_cast<const T*>(next.a);
    const PrefetchMode mode = prefetch_mode(next);
    SpreadPrefetchRows<T, kPrefetchRows> spread(next, lda * Rows::kBytes);
    __m512 lo[NR];
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) lo[j] = _mm512_setzero_ps();
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p) {
        if (mode == PrefetchMode::whole_columns)
            for (int line = 0; line < kPrefetchRows * Rows::kBytes; line += 64)
                _mm_prefetch(reinterpret_cast<const char*>(a_next + p * lda) + line, _MM_HINT_T0);
        if (mode == PrefetchMode::spread) spread.step();
        const __m512 a_lo = Rows::load_first(at + p * lda, mask_lo);
#pragma GCC unroll 12
        for (int j = 0; j < NR; ++j) lo[j] = _mm512_fmadd_ps(a_lo, _mm512_set1_ps(b[j]), lo[j]);
        b += b_step;
    }
    if (mode == PrefetchMode::spread) spread.finish();
    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) update_vector<false>(lo[j], valpha, vbeta, beta, c + j * ldc, mask_lo);
}

using SkinnyTile = void (*)(int64_t, float, const void*, int64_t, const float*, int64_t, float, float*, int64_t,
                            SkinnyPrefetch, __mmask16, __mmask16);

template <typename Rows, int kPrefetchRows>
constexpr SkinnyTile kTile16RowsForNr[kNR + 1] = {
    nullptr,
    skinny_tile_16_rows<Rows, 1, kPrefetchRows>,  skinny_tile_16_rows<Rows, 2, kPrefetchRows>,
    skinny_tile_16_rows<Rows, 3, kPrefetchRows>,  skinny_tile_16_rows<Rows, 4, kPrefetchRows>,
    skinny_tile_16_rows<Rows, 5, kPrefetchRows>,  skinny_tile_16_rows<Rows, 6, kPrefetchRows>,
    skinny_tile_16_rows<Rows, 7, kPrefetchRows>,  skinny_tile_16_rows<Rows, 8, kPrefetchRows>,
    skinny_tile_16_rows<Rows, 9, kPrefetchRows>,  skinny_tile_16_rows<Rows, 10, kPrefetchRows>,
    skinny_tile_16_rows<Rows, 11, kPrefetchRows>, skinny_tile_16_rows<Rows, 12, kPrefetchRows>};

// Whether Rows says its first vector holds rows 0-15 (a trait only some loaders have).
template <typename Rows, typename = void>
struct FirstVectorIsRows0To15 {
    static constexpr bool value = false;
};
template <typename Rows>
struct FirstVectorIsRows0To15<Rows, std::void_t<decltype(Rows::kFirstVectorIsRows0To15)>> {
    static constexpr bool value = Rows::kFirstVectorIsRows0To15;
};

// One instance per width: full tiles (all 32 rows, kFull) and edge tiles (masked rows).
template <typename Rows, bool kFull, int kPrefetchRows>
constexpr SkinnyTile kTileForNr[kNR + 1] = {
    nullptr,
    skinny_tile<Rows, 1, kFull, kPrefetchRows>,  skinny_tile<Rows, 2, kFull, kPrefetchRows>,
    skinny_tile<Rows, 3, kFull, kPrefetchRows>,  skinny_tile<Rows, 4, kFull, kPrefetchRows>,
    skinny_tile<Rows, 5, kFull, kPrefetchRows>,  skinny_tile<Rows, 6, kFull, kPrefetchRows>,
    skinny_tile<Rows, 7, kFull, kPrefetchRows>,  skinny_tile<Rows, 8, kFull, kPrefetchRows>,
    skinny_tile<Rows, 9, kFull, kPrefetchRows>,  skinny_tile<Rows, 10, kFull, kPrefetchRows>,
    skinny_tile<Rows, 11, kFull, kPrefetchRows>, skinny_tile<Rows, 12, kFull, kPrefetchRows>};

// The kernel of GemmSkinnyUkr (gemm_kernel.h) for A read as Rows reads it,
// prefetching kPrefetchRows rows of the next tile (the caller's tile height).
template <typename Rows, int kPrefetchRows = kMR>
void skinny_kernel(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda, const float* b,
                   int64_t b_step, float beta, float* c, int64_t ldc, SkinnyPrefetch next) {
    SkinnyTile tile =
        mr == kMR ? kTileForNr<Rows, true, kPrefetchRows>[nr] : kTileForNr<Rows, false, kPrefetchRows>[nr];
    if constexpr (FirstVectorIsRows0To15<Rows>::value)
        if (mr <= kMR / 2) tile = kTile16RowsForNr<Rows, kPrefetchRows>[nr];
    tile(kc, alpha, a, lda, b, b_step, beta, c, ldc, next, first_lanes(mr), first_lanes(mr - kMR / 2));
}

}  // namespace
}  // namespace ridge
