// Small problems: no packing of B, none of A unless it is transposed.
// j outer, i inner: the k x NR columns of B stay in L1 while the tiles of A
// pass by; the whole problem is small enough to live in L1/L2 (see
// dispatch.cpp for when this path is taken). One thread: a small problem
// does not pay for waking a second one.
#include <algorithm>

#include "gemm/gemm.h"
#include "gemm/pack.h"
#include "gemm/workspace.h"

namespace ridge {

size_t gemm_small_workspace_floats(const GemmArgs& g, const GemmKernel& ker) {
    if (!g.trans_a) return 0;
    const int64_t panels = (g.m + ker.MR - 1) / ker.MR;
    return size_t(panels * ker.MR * panel_depth(g.k));
}

ridge_status gemm_small_f32(const GemmArgs& g, const GemmKernel& ker) {
    const int64_t MR = ker.MR, NR = ker.NR;
    const float* a_in = static_cast<const float*>(g.a);
    const float* b_in = static_cast<const float*>(g.b);
    // The kernel reads a column of op(A) as contiguous rows. Untransposed A is
    // already that (column p at a + p*lda); transposed A is packed into MR-row
    // panels first, where column p of panel q is at panel + p*MR.
    const float* packed_a = nullptr;
    if (g.trans_a) {
        const int64_t panels = (g.m + MR - 1) / MR;
        Workspace* ws = this_thread_workspace();
        float* buf = ws == nullptr ? nullptr : ws->packed_a.reserve(gemm_small_workspace_floats(g, ker));
        if (buf == nullptr) return RIDGE_OUT_OF_MEMORY;
        pack_a_panels(ker.pack_panel, sizeof(float), ker.k_group, MatrixView{g.a, g.lda, true, sizeof(float)}, g.m,
                      g.k, MR, 0, panels, buf);
        packed_a = buf;
    }
    // op(B)(p, j) = b[p*b_step + j*b_col]
    const int64_t b_step = g.trans_b ? g.ldb : 1;
    const int64_t b_col = g.trans_b ? 1 : g.ldb;
    for (int64_t j0 = 0; j0 < g.n; j0 += NR) {
        const int64_t nr = std::min(NR, g.n - j0);
        const float* b = b_in + j0 * b_col;
        for (int64_t i0 = 0; i0 < g.m; i0 += MR) {
            const int64_t mr = std::min(MR, g.m - i0);
            const float* a = packed_a ? packed_a + i0 * panel_depth(g.k) : a_in + i0;
            const int64_t a_step = packed_a ? MR : g.lda;
            ker.small_f32(mr, nr, g.k, g.alpha, a, a_step, b, b_step, b_col, g.beta,
                          g.c + i0 + j0 * g.ldc, g.ldc);
        }
    }
    return RIDGE_SUCCESS;
}

}  // namespace ridge
