// Small problems: no packing of B, none of A unless it is transposed.
// j outer, i inner: the k x NR columns of B stay in L1 while the tiles of A
// pass by; op(A) is small enough to stay in L2 (see dispatch.cpp for when
// this path is taken), where every NR columns of C read it again.
// Threads claim the NR-column tiles of C one at a time (claim.h): each thread
// reads all of op(A) into its own core's L2 and the columns of B of its tiles.
// Every tile of C is one kernel call over all of k whichever thread runs it,
// so C is bit-identical for any thread count.
#include <omp.h>

#include <algorithm>

#include "gemm/claim.h"
#include "gemm/gemm.h"
#include "gemm/pack.h"
#include "gemm/workspace.h"

namespace ridge {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Rows of the tile that starts `rest` rows before the end of C: MR, except that
// a last remainder of at most MR/2 rows joins the tile before it (the small
// kernel takes up to MR + MR/2 rows: 48 = 32 + 16 in one pass, not a full
// tile and a half-empty one).
int64_t tile_rows(int64_t rest, int64_t MR) { return rest <= MR + MR / 2 ? rest : MR; }

// Transposed A is packed one panel per row tile, `panel_width` rows wide (MR,
// or the merged last tile rounded up to whole vectors of the kernel's lanes),
// panel of the tile at row i0 at i0 * panel_depth(k): within the MR-panel
// layout's footprint.
int64_t panel_width(int64_t mr, const GemmKernel& ker) {
    return std::max<int64_t>(ker.MR, ceil_div(mr, ker.lanes) * ker.lanes);
}

// Column tiles [first_tile, last_tile) of C (NR columns each, the last one narrower),
// every row. `packed_a`: op(A) packed by pack_transposed_a, or null to read A in place.
void small_tiles(const GemmArgs& g, const GemmKernel& ker, const float* packed_a, int64_t first_tile,
                 int64_t last_tile) {
    const int64_t MR = ker.MR, NR = ker.NR;
    const float* a_in = static_cast<const float*>(g.a);
    const float* b_in = static_cast<const float*>(g.b);
    // op(B)(p, j) = b[p*b_step + j*b_col]
    const int64_t b_step = g.trans_b ? g.ldb : 1;
    const int64_t b_col = g.trans_b ? 1 : g.ldb;
    for (int64_t j0 = first_tile * NR; j0 < std::min(g.n, last_tile * NR); j0 += NR) {
        const int64_t nr = std::min(NR, g.n - j0);
        const float* b = b_in + j0 * b_col;
        for (int64_t i0 = 0, mr; i0 < g.m; i0 += mr) {
            mr = tile_rows(g.m - i0, MR);
            // Column p of op(A)'s rows i0.. : in place at a + p*lda, packed at panel + p*width.
            const float* a = packed_a ? packed_a + i0 * panel_depth(g.k) : a_in + i0;
            const int64_t a_step = packed_a ? panel_width(mr, ker) : g.lda;
            ker.small_f32(mr, nr, g.k, g.alpha, a, a_step, b, b_step, b_col, g.beta, g.c + i0 + j0 * g.ldc, g.ldc);
        }
    }
}

// Packs op(A) (A transposed: each row of op(A) contiguous along k) into buf,
// one panel per row tile of small_tiles.
void pack_transposed_a(const GemmArgs& g, const GemmKernel& ker, float* buf) {
    const float* a = static_cast<const float*>(g.a);
    for (int64_t i0 = 0, mr; i0 < g.m; i0 += mr) {
        mr = tile_rows(g.m - i0, ker.MR);
        ker.pack_panel(a + i0 * g.lda, g.lda, false, mr, g.k, panel_width(mr, ker), buf + i0 * panel_depth(g.k));
    }
}

}  // namespace

float* reserve_small_packed_a(size_t floats) {
    if (floats == 0) return nullptr;
    Workspace* ws = this_thread_workspace();
    return ws == nullptr ? nullptr : ws->packed_a.reserve(floats);
}

size_t gemm_small_workspace_floats(const GemmArgs& g, const GemmKernel& ker) {
    if (!g.trans_a) return 0;
    const int64_t panels = ceil_div(g.m, ker.MR);
    return size_t(panels * ker.MR * panel_depth(g.k));
}

ridge_status gemm_small_f32(const GemmArgs& g, const GemmKernel& ker, int threads) {
    // The kernel reads a column of op(A) as contiguous rows. Untransposed A is
    // already that; transposed A is packed into MR-row panels first, by every
    // thread into its own workspace: a copy made by another core would have to
    // cross to this one's L2, which measured slower than packing it again
    // (ridge-bench, 256^3 TN, 2 threads: 246-266 GFLOP/s from one shared copy,
    // 345-387 with one copy each; 192^3 TT 208-215 and 332).
    const int64_t c_tiles = ceil_div(g.n, ker.NR);
    const size_t packed_floats = gemm_small_workspace_floats(g, ker);
    if (threads <= 1 || c_tiles < 2) {
        float* packed_a = reserve_small_packed_a(packed_floats);
        if (g.trans_a && packed_a == nullptr) return RIDGE_OUT_OF_MEMORY;
        if (g.trans_a) pack_transposed_a(g, ker, packed_a);
        small_tiles(g, ker, g.trans_a ? packed_a : nullptr, 0, c_tiles);
        return RIDGE_SUCCESS;
    }
    bool out_of_memory = false;
    const int team = int(std::min<int64_t>(threads, c_tiles));
    ClaimedShares column_tiles(c_tiles, team);  // a tile per claim: every tile costs the same anywhere
#pragma omp parallel num_threads(team)
    {
        // Every thread reserves before any thread writes C: out of memory leaves C untouched.
        float* packed_a = reserve_small_packed_a(packed_floats);
        if (g.trans_a && packed_a == nullptr) {
#pragma omp atomic write
            out_of_memory = true;
        }
#pragma omp barrier
        bool failed;
#pragma omp atomic read
        failed = out_of_memory;
        if (!failed) {
            if (g.trans_a) pack_transposed_a(g, ker, packed_a);
            // (Shares of threads OpenMP did not start are left over for the others.)
            column_tiles.run_claimed(omp_get_thread_num(), [&](int64_t tile) {
                small_tiles(g, ker, g.trans_a ? packed_a : nullptr, tile, tile + 1);
            });
        }
    }
    return out_of_memory ? RIDGE_OUT_OF_MEMORY : RIDGE_SUCCESS;
}

}  // namespace ridge
