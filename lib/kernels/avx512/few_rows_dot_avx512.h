// Few rows of C (m <= 16), AVX-512, in dot-product form: C(i, j) is the dot
// product of row i of op(A) and column j of op(B), both contiguous along k.
// For B in any input type (converted to fp32 as it is loaded, by `Load`).
// Header-only: each input type's file (<dtype>_gemm_few_rows_avx512.cpp)
// instantiates it.
//
// Why dot products: with m <= 16 a GEMM is a stream of B (k x n, the large
// operand, each element used by only m rows) past a small A. The outer-product
// form (a column of A times broadcast elements of B) issues one load per FMA
// for so few rows; here each k step of 16 loads 16 consecutive values of 3
// columns of B and of 8 rows of A (11 vector loads) for 24 FMAs into 24
// accumulators, and B is read in place, straight along its columns, which the
// hardware prefetchers follow. The 16 partial sums of each accumulator are
// added up once per tile, after all of k.
//
// Tile: 8 rows x 3 columns (24 zmm accumulators + 3 of B + 1 of A = 28 of the
// 32 registers). Rows 8-15 run as a second tile over the same columns, which
// then come from L2 (3 columns x k floats were just read). Up to 6 rows the
// tile is 6 rows x 4 columns, up to 4 rows 4 x 6 (24 + 6 + 1 = 31 registers):
// an 8-row tile would spend FMAs on zero rows, and more columns are more
// streams of B from memory, where 3 columns pulled ~18 GB/s per core.
// Measured against 8 x 3 (two builds alternated call by call, medians of 15
// paired ratios, 1 thread): 4 x 6 at 2, 3, 4 x 4096 x 4096 1.30 / 1.39 / 1.35,
// 4096 x 4 x 4096 TN (C^T) 1.40, fp16 / bf16 B 1.64 / 1.61; 6 x 4 at 5 and 6
// rows 1.12 / 1.13, 4096 x 6 x 4096 TN 1.12. (Two 4 x 6 passes for 5-8 rows:
// 0.86-0.88.)
#pragma once

#include "kernels/intrinsics.h"

#include "kernels/avx512/load_to_f32_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
// Internal linkage: each kernel file gets its own copy.
namespace {

// Tiles of 24 accumulators: 8 rows x 3 columns of B, and for fewer rows 6 x 4
// (m <= 6) or 4 x 6 (m <= 4).
constexpr int kRowsPerTile = 8;

// Software prefetch of each column of B 128 elements ahead (512 bytes of
// fp32). 4 KiB ahead was chosen when this form also ran 9-16 rows (16 x 4096 x
// 4096, B from memory: 0.95x oneDNN without, 1.05-1.18x with it); for the 8
// rows or fewer it runs now, far prefetches hold the fill buffers the column
// streams need. Measured, 128 elements / 1024, two builds alternated call by
// call (medians of 11-21 paired ratios), 1 thread: 8 x 4096 x 4096 1.057
// (64: 1.057, 256: 1.030-1.051, 512: 1.032, 2048: 0.886, none: 1.023;
// prefetcht1 / t2 at 1024: 0.94), 4 x 4096 x 4096 1.050 (at 256), 2 rows
// 1.048 (at 256), 8 x 1024 x 1024 1.056, fp16 / bf16 B 1.016-1.036, 2
// threads 1.079. Past the end of a column it only touches the next one's
// start (a prefetch never faults).
constexpr int64_t kPrefetchAheadB = 128;  // elements of B's type

// Sums of the 16 lanes of each of v[0..7], in lanes 0..7.
__m256 sum_lanes_of_8(const __m512 (&v)[kRowsPerTile]) {
    __m256 half[kRowsPerTile];
    for (int i = 0; i < kRowsPerTile; ++i)
        half[i] = _mm256_add_ps(_mm512_castps512_ps256(v[i]),
                                _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v[i]), 1)));
    // hadd pairs neighbours within each 128-bit lane: after two rounds lane
    // group g of q0 holds the 4-value sums of half[0..3]'s group g, q1 of half[4..7].
    const __m256 q0 = _mm256_hadd_ps(_mm256_hadd_ps(half[0], half[1]), _mm256_hadd_ps(half[2], half[3]));
    const __m256 q1 = _mm256_hadd_ps(_mm256_hadd_ps(half[4], half[5]), _mm256_hadd_ps(half[6], half[7]));
    // Low 128 bits + high 128 bits: the full sums, rows 0-3 from q0 and 4-7 from q1.
    return _mm256_add_ps(_mm256_permute2f128_ps(q0, q1, 0x20), _mm256_permute2f128_ps(q0, q1, 0x31));
}

// Sums of the 16 lanes of each of v[0..3], in lanes 0..3.
__m128 sum_lanes_of_4(const __m512 (&v)[4]) {
    __m256 half[4];
    for (int i = 0; i < 4; ++i)
        half[i] = _mm256_add_ps(_mm512_castps512_ps256(v[i]),
                                _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v[i]), 1)));
    // As above: lane group g of q holds the 4-value sums of half[0..3]'s group g.
    const __m256 q = _mm256_hadd_ps(_mm256_hadd_ps(half[0], half[1]), _mm256_hadd_ps(half[2], half[3]));
    return _mm_add_ps(_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1));
}

// Column j of a tile: the row sums of acc, times alpha, plus beta times C's
// column at cj, stored (rows below `rows` only).
inline void store_column(const __m512 (&acc)[8], int64_t rows, float alpha, float beta, float* cj) {
    const __mmask8 valid = __mmask8((1u << rows) - 1u);
    __m256 out = _mm256_mul_ps(_mm256_set1_ps(alpha), sum_lanes_of_8(acc));
    if (beta != 0.0f)  // beta == 0: C is written, never read
        out = _mm256_fmadd_ps(_mm256_set1_ps(beta), _mm256_maskz_loadu_ps(valid, cj), out);
    _mm256_mask_storeu_ps(cj, valid, out);
}
inline void store_column(const __m512 (&acc)[6], int64_t rows, float alpha, float beta, float* cj) {
    const __m512 padded[8] = {acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], _mm512_setzero_ps(), _mm512_setzero_ps()};
    store_column(padded, rows, alpha, beta, cj);
}
inline void store_column(const __m512 (&acc)[4], int64_t rows, float alpha, float beta, float* cj) {
    const __mmask8 valid = __mmask8((1u << rows) - 1u);
    __m128 out = _mm_mul_ps(_mm_set1_ps(alpha), sum_lanes_of_4(acc));
    if (beta != 0.0f)
        out = _mm_fmadd_ps(_mm_set1_ps(beta), _mm_maskz_loadu_ps(valid, cj), out);
    _mm_mask_storeu_ps(cj, valid, out);
}

// C[0:rows, 0:NJ] = alpha * Ar[0:R, 0:k] * B[0:k, 0:NJ] + beta * C, rows <= R.
template <typename Load, int R, int NJ>
void tile_RxNJ(int64_t rows, int64_t k, float alpha, const float* ar, int64_t ar_stride, const typename Load::T* b,
               int64_t ldb, float beta, float* c, int64_t ldc) {
    __m512 acc[NJ][R];
    for (int j = 0; j < NJ; ++j)
        for (int i = 0; i < R; ++i) acc[j][i] = _mm512_setzero_ps();
    int64_t p = 0;
    for (; p + 16 <= k; p += 16) {
        __m512 bv[NJ];
        for (int j = 0; j < NJ; ++j) {
            _mm_prefetch(reinterpret_cast<const char*>(b + j * ldb + p + kPrefetchAheadB), _MM_HINT_T0);
            bv[j] = Load::template load<true>(b + j * ldb + p, __mmask16(0xffff));
        }
        for (int i = 0; i < R; ++i) {
            __m512 av = _mm512_load_ps(ar + i * ar_stride + p);
            // Keep the row in a register: left alone, GCC folds this load into
            // each of the NJ FMAs (27 loads per 24 FMAs: load-bound, measured
            // 111 against 160+ GFLOP/s at 16 x 512 x 512).
            __asm__("" : "+v"(av));
            for (int j = 0; j < NJ; ++j) acc[j][i] = _mm512_fmadd_ps(av, bv[j], acc[j][i]);
        }
    }
    if (p < k) {  // the last k % 16 steps: B masked (never read past k), Ar zero-padded
        const __mmask16 tail = __mmask16((1u << (k - p)) - 1u);
        __m512 bv[NJ];
        for (int j = 0; j < NJ; ++j) bv[j] = Load::template load<false>(b + j * ldb + p, tail);
        for (int i = 0; i < R; ++i) {
            const __m512 av = _mm512_load_ps(ar + i * ar_stride + p);
            for (int j = 0; j < NJ; ++j) acc[j][i] = _mm512_fmadd_ps(av, bv[j], acc[j][i]);
        }
    }
    for (int j = 0; j < NJ; ++j) store_column(acc[j], rows, alpha, beta, c + j * ldc);
}

template <typename Load, int NJ>
void few_rows(int64_t m, int64_t k, float alpha, const float* ar, int64_t ar_stride, const typename Load::T* b,
              int64_t ldb, float beta, float* c, int64_t ldc) {
    for (int64_t i0 = 0; i0 < m; i0 += kRowsPerTile)
        tile_RxNJ<Load, kRowsPerTile, NJ>(m - i0 < kRowsPerTile ? m - i0 : kRowsPerTile, k, alpha, ar + i0 * ar_stride,
                                          ar_stride, b, ldb, beta, c + i0, ldc);
}

// One R-row tile (rows <= R) of nr <= 24 / R columns.
template <typename Load, int R>
void narrow_tile(int64_t rows, int64_t nr, int64_t k, float alpha, const float* ar, int64_t ar_stride,
                 const typename Load::T* b, int64_t ldb, float beta, float* c, int64_t ldc) {
    static_assert(R == 4 || R == 6, "the narrow tiles: 4 x 6 and 6 x 4");
    if constexpr (R == 4) {
        if (nr == 6) return tile_RxNJ<Load, R, 6>(rows, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
        if (nr == 5) return tile_RxNJ<Load, R, 5>(rows, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
    }
    switch (nr) {
        case 4: return tile_RxNJ<Load, R, 4>(rows, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
        case 3: return tile_RxNJ<Load, R, 3>(rows, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
        case 2: return tile_RxNJ<Load, R, 2>(rows, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
        default: return tile_RxNJ<Load, R, 1>(rows, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
    }
}

// The kernel of GemmFewRowsUkr (gemm_kernel.h) for B of Load's type: up to 4
// rows one 4 x 6 tile, up to 6 rows one 6 x 4 tile, else 8-row tiles of nr <= 3.
template <typename Load>
void few_rows_dot_kernel(int64_t m, int64_t nr, int64_t k, float alpha, const float* ar, int64_t ar_stride,
                         const void* b_in, int64_t ldb, float beta, float* c, int64_t ldc) {
    const auto* b = static_cast<const typename Load::T*>(b_in);
    if (m <= 4) return narrow_tile<Load, 4>(m, nr, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
    if (m <= 6) return narrow_tile<Load, 6>(m, nr, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
    if (nr == 3)
        few_rows<Load, 3>(m, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
    else if (nr == 2)
        few_rows<Load, 2>(m, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
    else
        few_rows<Load, 1>(m, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
}

}  // namespace
}  // namespace ridge
