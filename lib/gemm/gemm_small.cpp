// Small problems: no packing of B, none of A unless it is transposed.
// Three loops: blocks of rows of op(A), each small enough to stay in L2
// (the dispatcher's a_block_floats, half of L2); in a block, j over the NR
// columns of C, whose k x NR columns of B stay in L1 while the MR-row tiles
// of the block's A pass by from L2. Where all of op(A) fits, that is one block
// (see dispatch.cpp for when this path is taken). With more than one block,
// B's columns are read once per block (from L3 or memory), A once in all.
// Threads claim tiles of C one block of rows by NR columns at a time
// (claim.h), blocks of rows in order: a thread works in one block of A, in its
// own core's L2, until the block runs out.
// Every tile of C is one kernel call over all of k whichever thread runs it
// and however the rows are blocked, so C is bit-identical for any thread count.
// Known cost, not yet addressed: when lda is a multiple of 1024 floats (4 KiB),
// a tile's k columns all fall into the same two L1 sets, and L2 fills them
// about half as fast as lines spread over the sets. With few columns of C the
// kernel waits on those fills: on the Zen 5 VM (1 thread, A in L2, lda = m)
// 1024 x n x 128 ran 49 / 91 / 149 / 146 GFLOP/s at n = 2 / 4 / 8 / 16
// against 108 / 187 / 218 / 210 at m = 1040; from n = 64 on it is even
// (1024 x 1024 x 64 196 / 194). A loop of loads over the same tile pattern
// showed it without any FMA (59 against 105 GB/s), and reading two tiles'
// columns in turn (four sets) brought it back to 98: a 64-row tile for few
// columns is the lead. Sending such shapes to the skinny path ran 0.82-0.92.
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

// Row tiles of C down its m rows (tile_rows): tile t starts at row t * MR.
int64_t row_tile_count(int64_t m, int64_t MR) {
    int64_t tiles = 0;
    for (int64_t i0 = 0; i0 < m; i0 += tile_rows(m - i0, MR)) ++tiles;
    return tiles;
}

// Row tiles per block of op(A)'s `tiles` row tiles: as many MR x k tiles as
// a_block_floats holds (at least one; no limit when it is 0), in equal blocks
// (equal_block).
int64_t tiles_per_row_block(const GemmArgs& g, const GemmKernel& ker, int64_t tiles, int64_t a_block_floats) {
    const int64_t tile_floats = ker.MR * std::max<int64_t>(g.k, 1);
    // All of op(A) in one block, the usual small problem: decided without a
    // division (a few 64-bit divisions were a few percent of a 32^3 call).
    if (a_block_floats <= 0 || tiles * tile_floats <= a_block_floats) return tiles;
    const int64_t nominal = std::max<int64_t>(1, a_block_floats / tile_floats);
    return equal_block(tiles, nominal);
}

// The tiles of C in column tiles [first_col, last_col) (NR columns each, the
// last one narrower) and row tiles [first_row, last_row), j outer. `packed_a`:
// op(A) packed by pack_transposed_a, or null to read A in place.
struct TileRange {
    int64_t first_col, last_col, first_row, last_row;
};
void small_tiles(const GemmArgs& g, const GemmKernel& ker, const float* packed_a, const TileRange& r) {
    const int64_t MR = ker.MR, NR = ker.NR;
    const float* a_in = static_cast<const float*>(g.a);
    const float* b_in = static_cast<const float*>(g.b);
    // op(B)(p, j) = b[p*b_step + j*b_col]
    const int64_t b_step = g.trans_b ? g.ldb : 1;
    const int64_t b_col = g.trans_b ? 1 : g.ldb;
    for (int64_t j0 = r.first_col * NR; j0 < std::min(g.n, r.last_col * NR); j0 += NR) {
        const int64_t nr = std::min(NR, g.n - j0);
        const float* b = b_in + j0 * b_col;
        for (int64_t t = r.first_row; t < r.last_row; ++t) {
            const int64_t i0 = t * MR, mr = tile_rows(g.m - i0, MR);
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

int64_t small_row_blocks(const GemmArgs& g, const GemmKernel& ker, int64_t a_block_floats) {
    const int64_t tiles = row_tile_count(g.m, ker.MR);
    return ceil_div(tiles, tiles_per_row_block(g, ker, tiles, a_block_floats));
}

namespace {

// The row blocks and column tiles of one call (gemm_small_f32).
struct SmallSchedule {
    int64_t c_tiles, row_tiles, block_tiles, blocks;
    size_t packed_floats;  // op(A) packed per thread (transposed A), else 0
    void run_block(const GemmArgs& g, const GemmKernel& ker, const float* packed_a, int64_t block,
                   int64_t first_col, int64_t last_col) const {
        const int64_t first_row = block * block_tiles;
        small_tiles(g, ker, packed_a, {first_col, last_col, first_row, std::min(row_tiles, first_row + block_tiles)});
    }
};

// The team's share of the work: a piece per claim (a block of rows by one
// column tile), each thread packing its own op(A) when it is transposed.
// Kept out of gemm_small_f32, whose one-thread path a 32^3 call takes: the
// claims' cursors make this frame 4 KiB, and setting it up was measurable there.
__attribute__((noinline)) ridge_status run_small_team(const GemmArgs& g, const GemmKernel& ker, int threads,
                                                      const SmallSchedule& s) {
    const int64_t items = s.blocks * s.c_tiles;
    bool out_of_memory = false;
    const int team = int(std::min<int64_t>(threads, items));
    ClaimedShares pieces(items, team);  // a piece per claim: every piece of a block costs the same anywhere
#pragma omp parallel num_threads(team)
    {
        // Every thread reserves before any thread writes C: out of memory leaves C untouched.
        float* packed_a = reserve_small_packed_a(s.packed_floats);
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
            // Blocks of rows in order, so a share stays in one block of A as long as it can.
            pieces.run_claimed(omp_get_thread_num(), [&](int64_t item) {
                const int64_t column_tile = item % s.c_tiles;
                s.run_block(g, ker, g.trans_a ? packed_a : nullptr, item / s.c_tiles, column_tile, column_tile + 1);
            });
        }
    }
    return out_of_memory ? RIDGE_OUT_OF_MEMORY : RIDGE_SUCCESS;
}

}  // namespace

ridge_status gemm_small_f32(const GemmArgs& g, const GemmKernel& ker, int threads, int64_t a_block_floats) {
    // The kernel reads a column of op(A) as contiguous rows. Untransposed A is
    // already that; transposed A is packed into MR-row panels first, by every
    // thread into its own workspace: a copy made by another core would have to
    // cross to this one's L2, which measured slower than packing it again
    // (ridge-bench, 256^3 TN, 2 threads: 246-266 GFLOP/s from one shared copy,
    // 345-387 with one copy each; 192^3 TT 208-215 and 332).
    SmallSchedule s;
    s.c_tiles = ceil_div(g.n, ker.NR);
    s.row_tiles = row_tile_count(g.m, ker.MR);
    s.block_tiles = tiles_per_row_block(g, ker, s.row_tiles, a_block_floats);
    s.blocks = s.block_tiles == s.row_tiles ? 1 : ceil_div(s.row_tiles, s.block_tiles);
    s.packed_floats = gemm_small_workspace_floats(g, ker);
    if (threads > 1 && s.blocks * s.c_tiles >= 2) return run_small_team(g, ker, threads, s);
    float* packed_a = reserve_small_packed_a(s.packed_floats);
    if (g.trans_a && packed_a == nullptr) return RIDGE_OUT_OF_MEMORY;
    if (g.trans_a) pack_transposed_a(g, ker, packed_a);
    for (int64_t block = 0; block < s.blocks; ++block) s.run_block(g, ker, g.trans_a ? packed_a : nullptr, block, 0, s.c_tiles);
    return RIDGE_SUCCESS;
}

}  // namespace ridge
