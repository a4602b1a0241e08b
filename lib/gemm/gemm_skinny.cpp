// Skinny GEMM, few columns (decode: a weight matrix times a handful of
// vectors): C = alpha * A * op(B) + beta * C with A untransposed, n small.
//
// Packing A would read and write all of A to reuse each element only n times;
// instead A is read once, in place, by the small-problem kernel (a 32 x 12
// tile, A columns as contiguous rows, B values broadcast at any stride). The
// sweep is what matters for memory: k in chunks of kChunkK columns, each chunk
// swept over all rows, so A streams as kChunkK sequential column runs (a number
// the hardware prefetchers can follow) and C, m x n, stays in L2 between chunks.
// Threads split rows; each C element sees the same chunks in the same order.
#include <omp.h>

#include <algorithm>

#include "gemm/gemm.h"

namespace ridge {
namespace {

// Columns of A per chunk: 16 sequential streams, within the 16-32 the L2
// streamer of current cores tracks at once.
constexpr int64_t kChunkK = 16;

void sweep_rows(const GemmArgs& g, const GemmKernel& ker, int64_t row_first, int64_t row_last) {
    const int64_t MR = ker.MR, NR = ker.NR;
    const float* a = static_cast<const float*>(g.a);
    const float* b = static_cast<const float*>(g.b);
    const int64_t b_step = g.trans_b ? g.ldb : 1;  // op(B)(p, j) = b[p*b_step + j*b_col]
    const int64_t b_col = g.trans_b ? 1 : g.ldb;
    for (int64_t p0 = 0; p0 < g.k; p0 += kChunkK) {
        const int64_t kc = std::min(kChunkK, g.k - p0);
        for (int64_t j0 = 0; j0 < g.n; j0 += NR) {
            const int64_t nr = std::min(NR, g.n - j0);
            for (int64_t i0 = row_first; i0 < row_last; i0 += MR) {
                const int64_t mr = std::min(MR, row_last - i0);
                ker.small_f32(mr, nr, kc, g.alpha, a + i0 + p0 * g.lda, g.lda, b + p0 * b_step + j0 * b_col,
                              b_step, b_col, 1.0f, g.c + i0 + j0 * g.ldc, g.ldc);
            }
        }
    }
}

}  // namespace

ridge_status gemm_skinny_n_f32(const GemmArgs& g, const GemmKernel& ker, int threads) {
    // C = beta * C first (beta == 0 writes zeros, never reads C); then C += alpha * A * op(B).
    for (int64_t j = 0; j < g.n; ++j) {
        float* cj = g.c + j * g.ldc;
        for (int64_t i = 0; i < g.m; ++i) cj[i] = g.beta == 0.0f ? 0.0f : g.beta * cj[i];
    }
    const int64_t tiles = (g.m + ker.MR - 1) / ker.MR;
    if (threads <= 1 || tiles < 2) {
        sweep_rows(g, ker, 0, g.m);
        return RIDGE_SUCCESS;
    }
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), parts = omp_get_num_threads();
        const int64_t first = std::min(g.m, (tiles * t / parts) * ker.MR);
        const int64_t last = std::min(g.m, (tiles * (t + 1) / parts) * ker.MR);
        if (first < last) sweep_rows(g, ker, first, last);
    }
    return RIDGE_SUCCESS;
}

}  // namespace ridge
