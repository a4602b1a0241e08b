// Skinny GEMM, few rows: C (m x n, m <= 16) = alpha * op(A) * op(B) + beta * C.
//
// Here op(B), k x n, is the large operand and each of its elements is used by
// only m rows: packing it would read and write all of B to save nothing. The
// kernel (GemmKernel::skinny_m_f32, 16 x 24 tiles) reads B in place, once,
// and keeps a whole column strip of C in registers over all of k, so C is
// written once per block of k. op(A), at most 16 x k, is read once per strip of 24 columns
// from L1/L2; when A is transposed its rows are strided, so it is copied once
// into a contiguous 16 x k panel first.
// Threads split the strips: each C element is computed by one thread, the
// same way for any thread count.
#include <omp.h>

#include <algorithm>

#include "gemm/gemm.h"
#include "gemm/workspace.h"

namespace ridge {
namespace {

constexpr int64_t kRows = 16;       // the kernel's tile: one zmm of rows
constexpr int64_t kStripCols = 24;  // and 24 columns

// Untransposed B is copied a block of kDepth k steps at a time into a small
// buffer whose columns sit kCopyStride floats apart. In place, the strip's 24
// columns are ldb apart: with ldb a multiple of 1024 floats (4 KiB) every one of
// them falls in the same L1 set, 24 lines in a 12-way set, and each line is
// evicted before its 16 values are used (measured: 16 x 4096 x 4096 at 37
// GFLOP/s in place). The copy reads each column as one sequential run and
// costs a vector load and store per 16 values; 24 x 144 floats is 14 KiB, in L1
// beside the 8 KiB of A the block uses. The odd stride (144 = 128 + 16)
// spreads the columns over the L1 sets.
constexpr int64_t kDepth = 128;
constexpr int64_t kCopyStride = kSkinnyMCopyStride;  // kDepth + 16: the kernel has code for this stride
static_assert(kCopyStride >= kDepth, "a copied column must fit its stride");

void copy_block(const float* b, int64_t ldb, int64_t depth, int64_t cols, float* buf) {
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t p = 0; p < depth; ++p) buf[j * kCopyStride + p] = b[j * ldb + p];
}

// The calling thread's copy buffer for untransposed B (nullptr: out of memory).
float* copy_buffer() {
    Workspace* ws = this_thread_workspace();
    return ws == nullptr ? nullptr : ws->packed_b.reserve(size_t(kStripCols * kCopyStride));
}

// One strip of C (up to 24 columns) over all of k; `buf` is needed unless B is transposed.
void run_strip(const GemmArgs& g, const GemmKernel& ker, const float* a, int64_t a_step, float* buf, int64_t j0,
               int64_t nr) {
    const float* b = static_cast<const float*>(g.b);
    float* c = g.c + j0 * g.ldc;
    if (g.trans_b) {  // op(B)(p, j) = b[p*ldb + j]: each k step is a contiguous row, no conflict
        ker.skinny_m_f32(g.m, nr, g.k, g.alpha, a, a_step, b + j0, g.ldb, 1, g.beta, c, g.ldc);
        return;
    }
    for (int64_t p0 = 0; p0 < g.k; p0 += kDepth) {
        const int64_t depth = std::min(kDepth, g.k - p0);
        copy_block(b + p0 + j0 * g.ldb, g.ldb, depth, nr, buf);
        // The first block applies beta (beta == 0: C not read); the others add to it.
        const float beta = p0 == 0 ? g.beta : 1.0f;
        ker.skinny_m_f32(g.m, nr, depth, g.alpha, a + p0 * a_step, a_step, buf, 1, kCopyStride, beta, c, g.ldc);
    }
}

void run_strips(const GemmArgs& g, const GemmKernel& ker, const float* a, int64_t a_step, float* buf,
                int64_t first, int64_t last) {
    for (int64_t s = first; s < last; ++s) {
        const int64_t j0 = s * kStripCols;
        run_strip(g, ker, a, a_step, buf, j0, std::min(kStripCols, g.n - j0));
    }
}

}  // namespace

ridge_status gemm_skinny_m_f32(const GemmArgs& g, const GemmKernel& ker, int threads) {
    // op(A) column p: A(:, p) in place (rows contiguous), or from a packed copy of A^T.
    const float* a = static_cast<const float*>(g.a);
    int64_t a_step = g.lda;
    if (g.trans_a) {
        Workspace* ws = this_thread_workspace();
        float* panel = ws == nullptr ? nullptr : ws->packed_a.reserve(size_t(kRows * g.k));
        if (panel == nullptr) return RIDGE_OUT_OF_MEMORY;
        // X = op(A) (m rows, k steps): X(i, p) = A(p, i) = a[p + i*lda], rows along k.
        for (int64_t p = 0; p < g.k; ++p)
            for (int64_t i = 0; i < kRows; ++i) panel[p * kRows + i] = i < g.m ? a[p + i * g.lda] : 0.0f;
        a = panel;
        a_step = kRows;
    }
    const int64_t strips = (g.n + kStripCols - 1) / kStripCols;
    const int team = int(std::min<int64_t>(std::max(threads, 1), strips));
    if (team <= 1) {
        float* buf = g.trans_b ? nullptr : copy_buffer();
        if (!g.trans_b && buf == nullptr) return RIDGE_OUT_OF_MEMORY;
        run_strips(g, ker, a, a_step, buf, 0, strips);
        return RIDGE_SUCCESS;
    }
    // Every thread gets its buffer before any thread writes C: out of memory in
    // one of them leaves C untouched.
    ridge_status status = RIDGE_SUCCESS;
#pragma omp parallel num_threads(team)
    {
        float* buf = g.trans_b ? nullptr : copy_buffer();
        if (!g.trans_b && buf == nullptr) {
#pragma omp critical(ridge_skinny_m_status)
            status = RIDGE_OUT_OF_MEMORY;
        }
#pragma omp barrier
        if (status == RIDGE_SUCCESS) {
            const int64_t t = omp_get_thread_num(), parts = omp_get_num_threads();
            run_strips(g, ker, a, a_step, buf, strips * t / parts, strips * (t + 1) / parts);
        }
    }
    return status;
}

}  // namespace ridge
