// Few rows of C (9 to 16 of them), AVX-512, in outer-product form: the 16
// rows of a column of C are one zmm, so a k step is one load of op(A)'s column
// (16 rows, from a packed 16 x k panel in L2) and one FMA per column of C with
// B's element broadcast from memory (the FMA's embedded broadcast: one uop).
//
// Why not the dot-product kernel (f32_gemm_few_rows_avx512.cpp) for these m:
// it loads 8 rows of A and 3 columns of B (11 vectors) per 24 FMAs, and with
// m = 16 it reads A's 16 x k from L2 again for every 3 columns of B; it reached
// 120-132 GFLOP/s at 16 x 264 x 1024 (B in L2) where this form reached
// 140-150, and 83-97 against 106-121 at 16 x 4104 x 4096 (B from memory), 1
// thread, standalone, alternating. With 8 rows or fewer the dot products stay
// better: this form always spends 16 lanes per FMA.
//
// B is read in place, down its columns, but not broadcast straight from it:
// a tile's 24 columns are ldb apart, and when ldb is a multiple of 1 KiB
// floats (4096 in the decode shapes) the same k step of every column falls
// into one L1 set, 24 lines into 12 ways (measured: 95-99 GFLOP/s broadcasting
// in place with ldb = 1024 against 149 with ldb padded by 16). So every 16 k
// steps the kernel copies the tile's next 16 values of each column (one line
// each, read once from memory) into a 24-line buffer on the stack, and
// broadcasts from there. Software prefetch of B measured no better than the
// hardware prefetchers following the 24 sequential column streams.
//
// Tile: 16 rows x 24 columns (24 zmm accumulators + A's column). Narrower
// remainders run as tiles of 16, 8, 4, 2 and 1 columns.
#include <immintrin.h>

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kRows = 16;        // one zmm of fp32
constexpr int kStepsPerCopy = 16;  // k steps per copy of B: one line of each column

// `steps` k steps of the tile (16, or the last k % 16 when kSteps is 0), A16
// and B at their first: copy each column's values to the buffer (masked past
// k: never reads beyond the column), then one A load and NJ broadcast FMAs per step.
template <int NJ, int kSteps>
inline void accumulate_steps(int64_t steps, const float* a16, const float* b, int64_t ldb, float* buffer,
                             __m512 (&acc)[NJ]) {
    const __mmask16 valid = first_lanes(steps);
    // One column at a time through a running pointer: unrolled across all
    // columns, GCC keeps every column's address in a register of its own and
    // spills the accumulators.
#pragma GCC unroll 4
    for (int j = 0; j < NJ; ++j) {
        const float* column = b + j * ldb;
        _mm512_store_ps(buffer + j * kStepsPerCopy,
                        kSteps == kStepsPerCopy ? _mm512_loadu_ps(column) : _mm512_maskz_loadu_ps(valid, column));
    }
    const int64_t count = kSteps == kStepsPerCopy ? kStepsPerCopy : steps;
#pragma GCC unroll 4
    for (int64_t q = 0; q < count; ++q) {
        const __m512 a_column = _mm512_load_ps(a16 + q * kRows);
#pragma GCC unroll 24
        for (int j = 0; j < NJ; ++j)
            acc[j] = _mm512_fmadd_ps(a_column, _mm512_set1_ps(buffer[j * kStepsPerCopy + q]), acc[j]);
    }
}

// C[0:m, 0:NJ] = alpha * A16[0:m, 0:k] * B[0:k, 0:NJ] + beta * C.
template <int NJ>
void tile_16xNJ(int64_t m, int64_t k, float alpha, const float* a16, const float* b, int64_t ldb, float beta,
                float* c, int64_t ldc) {
    alignas(64) float buffer[NJ * kStepsPerCopy];
    __m512 acc[NJ];
#pragma GCC unroll 24
    for (int j = 0; j < NJ; ++j) acc[j] = _mm512_setzero_ps();
    int64_t p = 0;
    for (; p + kStepsPerCopy <= k; p += kStepsPerCopy)
        accumulate_steps<NJ, kStepsPerCopy>(kStepsPerCopy, a16 + p * kRows, b + p, ldb, buffer, acc);
    if (p < k) accumulate_steps<NJ, 0>(k - p, a16 + p * kRows, b + p, ldb, buffer, acc);
    const __mmask16 rows = first_lanes(m);
    const __m512 valpha = _mm512_set1_ps(alpha);
#pragma GCC unroll 24
    for (int j = 0; j < NJ; ++j) {
        float* cj = c + j * ldc;
        __m512 out = _mm512_mul_ps(valpha, acc[j]);
        if (beta != 0.0f)  // beta == 0: C is written, never read
            out = _mm512_fmadd_ps(_mm512_set1_ps(beta), _mm512_maskz_loadu_ps(rows, cj), out);
        _mm512_mask_storeu_ps(cj, rows, out);
    }
}

}  // namespace

void ukr_f32_gemm_few_rows_16x24__avx512(int64_t m, int64_t nr, int64_t k, float alpha, const float* a16,
                                         const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
    using Tile = void (*)(int64_t, int64_t, float, const float*, const float*, int64_t, float, float*, int64_t);
    struct Width {
        int64_t columns;
        Tile tile;
    };
    // Whole tiles of 24, then a remainder as at most one tile of each narrower width.
    constexpr Width kWidths[] = {{24, tile_16xNJ<24>}, {16, tile_16xNJ<16>}, {8, tile_16xNJ<8>},
                                 {4, tile_16xNJ<4>},   {2, tile_16xNJ<2>},   {1, tile_16xNJ<1>}};
    int64_t j = 0;
    for (const Width& w : kWidths)
        for (; nr - j >= w.columns; j += w.columns) w.tile(m, k, alpha, a16, b + j * ldb, ldb, beta, c + j * ldc, ldc);
}

}  // namespace ridge
