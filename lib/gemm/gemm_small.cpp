// Small problems: no packing of B, none of A unless it is transposed.
// Three loops: blocks of rows of op(A), each small enough to stay in L2
// (the dispatcher's a_block_floats, half of L2); in a block, j over the NR
// columns of C, whose k x NR columns of B stay in L1 while the MR-row tiles
// of the block's A pass by from L2. Where all of op(A) fits, that is one block
// (see paths.cpp for when this path is taken). With more than one block,
// B's columns are read once per block (from L3 or memory), A once in all.
// Threads claim tiles of C one block of rows by NR columns at a time
// (claim.h), blocks of rows in order: a thread works in one block of A, in its
// own core's L2, until the block runs out.
// Every tile of C is one kernel call per k step (all of k, or the blocked
// path's KC steps: see gemm_small_f32) whichever thread runs it and however
// the rows are blocked, so C is bit-identical for any thread count.
// Tiles are MR rows by NR columns, or taller where lda would put a tile's
// columns on the same L1 sets (tile_height), or 8 columns wide where ldb would
// put B's (narrow_b_tiles).
// Measured on the Zen 4 and not kept (one thread, `RIDGE_NUM_THREADS=1 ridge-ab
// OLD NEW n n n 15` at 448^3-600^3, where a run in a process of its own moves
// by up to +-1.5% with where the matrices land: two copies of one build ran
// 0.985-1.021): op(A) packed into MR-row panels first and the tiles run on
// the panels 0.965-1.003 (the kernel ~2% faster, the pack ~4% of its time);
// op(A) copied into the panels by the first column tile of each block as it
// computes (oneDNN's no-copy kernel does this with its 48-row tiles), the
// other column tiles reading the copy, 0.988-1.010; the next column tile's B
// prefetched a slice per row tile 0.990-1.011 (an rdtsc probe: the first
// row tile of each column tile costs ~1.15x the others with and without it);
// blocks of a quarter of L2 1.000-1.008.
// Where 512^3 loses its last 2-3% (97-98% of the FMA peak; rdtsc around each
// tile and experiment builds, `RIDGE_NUM_THREADS=1 ridge-ab OLD NEW 512 512
// 512 15-21`): a 32 x 12 tile runs at ~98% of the peak, about as fast with all
// its A from one L1-resident column (0.998) or all its B from one value
// (1.008); 48 x 8 tiles (column tiles of 8) ran 1.000 / 1.001. So neither the
// reads nor the tile's shape is it. Writing C is: the tiles' stores sent to a
// 1.5 KiB scratch instead ran 1.011-1.019 (to one at C's ldc, which stays in
// L2, 1.003-1.009), non-temporal stores 1.005-1.019, but the first is not a
// GEMM and the second leaves C in memory, not in the caches where its caller
// reads it next. Prefetching C did not recover the cost: into L2 a tile ahead
// 0.988-1.009, or over the tile's last 48-96 k steps 0.992-0.994; with write
// intent into L1 over the last 12, 24 or 48 k steps 0.997-1.002, a tile ahead
// 0.992-0.993 (its lines share the L1 sets of A's columns when ldc = lda, and
// A's stream evicts them). Nor did the row tiles in serpentine order (every
// other column tile bottom to top, so that the next tile's A is the one used
// last, not the one least recently used in L2): 0.981-0.997.
#include <omp.h>

#include <algorithm>

#include "gemm/claim.h"
#include "gemm/gemm.h"
#include "gemm/l1_sets.h"
#include "gemm/pack.h"
#include "gemm/workspace.h"
#include "util/int_math.h"

namespace ridge {
namespace {

// Where untransposed B's columns lie a multiple of 4 KiB apart (ldb = 1024,
// 2048, ... floats: k = 1024 in a packed B), each k step's broadcasts read one
// line from each of the tile's columns, all in the same L1 set: 12 columns are
// more lines than the set's 8 ways (Zen 4), and they miss L1 at every step.
// Measured on the Zen 4 (ridge-bench paired, 1 thread), 32 x 12 tiles on B in
// place: 128 x 1024 x 1024 106.0 GFLOP/s against 114.0 at k = 1040, 96 x 96 x
// 1024 105.5 against 114.7, 256 x 512 x 1024 101.5 against 109.5.
// Up to kMaxRowsForNarrowTiles rows, column tiles of kNarrowTileColumns (8:
// 8 lines fit the set's ways) read B in place, in row tiles of MR + MR/2 (the
// small kernel's 3-vector tile, 24 FMAs a k step as in 32 x 12; A transposed:
// MR, its packed panels' width). With more rows, each column tile of B is
// copied k-major first (copies_b_panels): the copy is then shared by many row
// tiles, and the 32 x 12 tile reads a third less of A per FMA than 48 x 8.
// Narrow tiles against the copy (3 MR-row tiles and more) or 12-column tiles in
// place (fewer), `RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 7 [TN]`: 32 x 256 x
// 1024 1.098 (TN 1.077), 64 x 1024 x 1024 1.090 (TN 1.087, 2 threads 1.41),
// 64 x 64 x 4096 1.091, 96 x 96 x 1024 1.055, 96 x 2048 x 2048 1.048 (2
// threads 1.044), 128 x 1024 x 1024 1.020-1.046 (TN 1.047), 160 x 160 x 1024
// 1.033, 256 x 256 x 4096 1.029 (TN 1.027), 256 x 4096 x 4096 1.020, 320 x
// 2048 x 2048 1.023, 320 x 320 x 1024 1.001, 48 x 1024 x 1024 0.995 (already
// one 48-row pass in 6-column halves); the copy stays ahead from 384 rows:
// 384 x 2048 x 2048 0.995, 384 x 384 x 1024 0.983.
constexpr int64_t kNarrowTileColumns = 8;
constexpr int64_t kMaxRowsForNarrowTiles = 320;  // 10 tiles of 32
// (b_columns_share_l1_sets, below: a kernel whose NR columns fit the ways, as
// AVX2's 6, reads B in place as it is.)
bool narrow_b_tiles(const GemmArgs& g, const GemmKernel& ker) {
    return b_columns_share_l1_sets(g, ker) && g.m <= kMaxRowsForNarrowTiles;
}
bool copies_b_panels(const GemmArgs& g, const GemmKernel& ker) {
    return b_columns_share_l1_sets(g, ker) && !narrow_b_tiles(g, ker);
}

// Rows per tile of C: MR, except where all of a tile's k columns fall into the
// same L1 sets. When lda is a multiple of 4 KiB (the L1's set period: 64 sets
// of 64-byte lines in Zen 4's 32 KiB 8-way L1d, Zen 5's 48 KiB 12-way, and
// Intel's since Sandy Bridge),
// an MR-row tile reads its columns from two sets only, and L2 fills one set's
// lines about half as fast as lines spread over the sets: a loop of loads over
// that pattern ran 59 GB/s against 105 at lda = 1040 floats, and 98 reading two
// tiles' columns in turn. So such tiles are 2 MR rows tall (four sets), in two
// column halves of at most 6 (the kernel's 4-vector tile); 7-8 columns take
// MR + MR/2 rows, which the 3-vector tile covers in one pass (2 MR rows ran
// 0.80-0.88x of that there). Up to kTallTilesMaxColumns columns of C: wider,
// 12-column tiles do enough work per line to hide most of the fills.
// Measured on the Zen 5 VM, paired, 1 thread, lda = m, A in L2
// (`RIDGE_NUM_THREADS=1 build/bench/ridge-ab OLD NEW 1024 n 128 21`):
// n = 2 1.55, 4 1.64-1.80, 6 1.52, 7 1.24, 8 1.21-1.23, 12 1.07-1.08,
// 16 1.27-1.29; 2048 x 8 x 64 1.16 (2 threads 1.18), 2048 x 16 x 64
// 1.24-1.34, 1024 x 8 x 256 1.24, 1024 x 16 x 32 1.12. At 24-48 columns
// (k = 64-128) tall tiles ran 1.06-1.10 in one spell of the host and
// 0.95-1.01 in another, hence the limit. Other lda: 1040 x 8 x 128 1.008.
// (kTallTilesMaxColumns: l1_sets.h.)
// A kernel whose MR rows span two lines or more (AVX-512's 32 fp32 rows)
// takes them where lda is any multiple of 1 KiB as well: its columns then
// fall on at most 4 of the L1's set offsets. Measured on the Intel VM against
// 4 KiB multiples only (`RIDGE_NUM_THREADS=T build/bench/ridge-ab OLD NEW M N
// K 15`, an experiment build, lda = m): 1 thread 512 x 4 x 256 1.231, 512 x 8
// x 128 1.062, 512 x 16 x 128 / 256 1.055 / 1.078, 256 x 4 x 512 1.235, 256 x
// 16 x 256 1.055, 768 x 8 x 128 (3 KiB) 1.086, 1280 x 8 x 128 1.085; 2
// threads 512 x 8 x 128 1.058, 768 x 8 x 256 1.105. AVX2's 16-row tiles (one
// line a column) did not gain (`RIDGE_ISA=avx2`: 512 x 4 x 256 0.895, 512 /
// 768 x 8 x 128 1.000 / 1.008): they keep 4 KiB.
bool a_columns_on_few_l1_sets(const GemmArgs& g, const GemmKernel& ker) {
    const int64_t stride = g.lda * int64_t(sizeof(float));
    if (stride % kL1SetPeriodBytes == 0) return true;
    return ker.MR * int64_t(sizeof(float)) >= kTwoCacheLinesBytes && stride % kFewL1SetsStrideBytes == 0;
}
int64_t tile_height(const GemmArgs& g, const GemmKernel& ker) {
    if (narrow_b_tiles(g, ker)) return g.trans_a ? ker.MR : ker.MR + ker.MR / 2;
    const bool same_sets = !g.trans_a && a_columns_on_few_l1_sets(g, ker);
    if (!same_sets || g.n > kTallTilesMaxColumns) return ker.MR;
    return g.n == 7 || g.n == 8 ? ker.MR + ker.MR / 2 : 2 * ker.MR;
}

// Rows of the tile that starts `rest` rows before the end of C, in tiles of
// `height` rows. At the usual height, MR, a last remainder of at most MR/2 rows
// joins the tile before it (the small kernel takes up to 2 MR rows: 48 = 32 +
// 16 in one pass, not a full tile and a half-empty one); taller tiles
// (tile_height) leave a last tile of what remains.
int64_t tile_rows(int64_t rest, int64_t height, int64_t MR) {
    if (height != MR) return std::min(rest, height);
    return rest <= MR + MR / 2 ? rest : MR;
}

// Transposed A is packed one panel per row tile, `panel_width` rows wide (MR,
// or the merged last tile rounded up to whole vectors of the kernel's lanes),
// panel of the tile at row i0 at i0 * panel_depth(k): within the MR-panel
// layout's footprint.
int64_t panel_width(int64_t mr, const GemmKernel& ker) {
    return std::max<int64_t>(ker.MR, ceil_div(mr, ker.lanes) * ker.lanes);
}

// Row tiles of C down its m rows (tile_rows): tile t starts at row t * height.
int64_t row_tile_count(int64_t m, int64_t height, int64_t MR) {
    int64_t tiles = 0;
    for (int64_t i0 = 0; i0 < m; i0 += tile_rows(m - i0, height, MR)) ++tiles;
    return tiles;
}

// Row tiles per block of op(A)'s `tiles` row tiles of `height` rows: as many
// height x k tiles as a_block_floats holds (at least one; no limit when it is
// 0), in equal blocks (equal_block).
int64_t tiles_per_row_block(const GemmArgs& g, int64_t height, int64_t tiles, int64_t a_block_floats) {
    const int64_t tile_floats = height * std::max<int64_t>(g.k, 1);
    // All of op(A) in one block, the usual small problem: decided without a
    // division (a few 64-bit divisions were a few percent of a 32^3 call).
    if (a_block_floats <= 0 || tiles * tile_floats <= a_block_floats) return tiles;
    const int64_t nominal = std::max<int64_t>(1, a_block_floats / tile_floats);
    return equal_block(tiles, nominal);
}

// The floats of the small path's workspace: op(A)'s panels (transposed A)
// first, then one column tile's B panel (copies_b_panels).
int64_t packed_a_floats(const GemmArgs& g, const GemmKernel& ker) {
    return g.trans_a ? ceil_div(g.m, ker.MR) * ker.MR * panel_depth(g.k) : 0;
}
int64_t b_panel_floats(const GemmArgs& g, const GemmKernel& ker) {
    return copies_b_panels(g, ker) ? ker.NR * panel_depth(g.k) : 0;
}

// The tiles of C in column tiles [first_col, last_col) (small_column_tile_width
// columns each, the last one narrower) and row tiles [first_row, last_row) of `height` rows, j
// outer, each tile through the k steps in [first_p, last_p). `packed_a`: op(A)
// packed by pack_transposed_a, or null to read A in place; `b_panel`: room for
// a column tile of B (copies_b_panels), which it then holds for all of k, or
// null to read B in place.
struct TileRange {
    int64_t first_col, last_col, first_row, last_row;
    int64_t first_p, last_p;  // k steps from first_p (a multiple of k_step) up to last_p; k = 0: one step
};
void small_tiles(const GemmArgs& g, const GemmKernel& ker, int64_t height, int64_t k_step, const float* packed_a,
                 float* b_panel, const TileRange& r) {
    const int64_t MR = ker.MR, NR = small_column_tile_width(g, ker);
    const float* a_in = static_cast<const float*>(g.a);
    const float* b_in = static_cast<const float*>(g.b);
    // op(B)(p, j) = b[p*b_step + j*b_col]
    const int64_t b_step = g.trans_b ? g.ldb : 1;
    const int64_t b_col = g.trans_b ? 1 : g.ldb;
    for (int64_t j0 = r.first_col * NR; j0 < std::min(g.n, r.last_col * NR); j0 += NR) {
        const int64_t nr = std::min(NR, g.n - j0);
        const float* b = b_in + j0 * b_col;
        int64_t b_step_j = b_step, b_col_j = b_col;
        if (b_panel != nullptr) {  // op(B)(p, j0 + j) at b_panel[p*NR + j]
            ker.pack_panel_b(b, g.ldb, false, nr, g.k, NR, b_panel);
            b = b_panel, b_step_j = NR, b_col_j = 1;
        }
        for (int64_t t = r.first_row; t < r.last_row; ++t) {
            const int64_t i0 = t * height, mr = tile_rows(g.m - i0, height, MR);
            // Column p of op(A)'s rows i0.. : in place at a + p*lda, packed at panel + p*width.
            const float* a = packed_a ? packed_a + i0 * panel_depth(g.k) : a_in + i0;
            const int64_t a_step = packed_a ? panel_width(mr, ker) : g.lda;
            float* c = g.c + i0 + j0 * g.ldc;
            // The k steps in order, the first scaling C by beta and the rest adding to it (at least one: k = 0 scales C).
            for (int64_t p0 = r.first_p; p0 == r.first_p || p0 < r.last_p; p0 += k_step) {
                const int64_t depth = std::min(k_step, g.k - p0);
                ker.small_f32(mr, nr, depth, g.alpha, a + p0 * a_step, a_step, b + p0 * b_step_j, b_step_j, b_col_j,
                              p0 == 0 ? g.beta : 1.0f, c, g.ldc);
            }
        }
    }
}

// Packs op(A) (A transposed: each row of op(A) contiguous along k) into buf,
// one panel per row tile of small_tiles.
void pack_transposed_a(const GemmArgs& g, const GemmKernel& ker, float* buf) {
    const float* a = static_cast<const float*>(g.a);
    for (int64_t i0 = 0, mr; i0 < g.m; i0 += mr) {
        mr = tile_rows(g.m - i0, ker.MR, ker.MR);  // tile_height is MR for a transposed A
        ker.pack_panel(a + i0 * g.lda, g.lda, false, mr, g.k, panel_width(mr, ker), buf + i0 * panel_depth(g.k));
    }
}

}  // namespace

bool b_columns_share_l1_sets(const GemmArgs& g, const GemmKernel& ker) {
    return ker.NR > kNarrowTileColumns && !g.trans_b && g.k > 0 &&
           (g.ldb * int64_t(sizeof(float))) % kL1SetPeriodBytes == 0;
}

float* reserve_small_packed_a(size_t floats) {
    if (floats == 0) return nullptr;
    Workspace* ws = this_thread_workspace();
    return ws == nullptr ? nullptr : ws->packed_a.reserve(floats);
}

bool small_path_copies_b(const GemmArgs& g, const GemmKernel& ker) { return copies_b_panels(g, ker); }

int64_t small_column_tile_width(const GemmArgs& g, const GemmKernel& ker) {
    return narrow_b_tiles(g, ker) ? kNarrowTileColumns : ker.NR;
}

size_t gemm_small_workspace_floats(const GemmArgs& g, const GemmKernel& ker) {
    return size_t(packed_a_floats(g, ker) + b_panel_floats(g, ker));
}

int64_t small_row_blocks(const GemmArgs& g, const GemmKernel& ker, int64_t a_block_floats) {
    const int64_t height = tile_height(g, ker);
    const int64_t tiles = row_tile_count(g.m, height, ker.MR);
    return ceil_div(tiles, tiles_per_row_block(g, height, tiles, a_block_floats));
}

namespace {

constexpr int64_t kAllOfK = -1;

// The row blocks and column tiles of one call (gemm_small_f32).
struct SmallSchedule {
    int64_t height;  // rows per tile (tile_height)
    int64_t k_step;  // depth of each kernel call (gemm_small_f32), at least 1
    int64_t c_tiles, row_tiles, block_tiles, blocks;
    size_t packed_floats;  // each thread's workspace (gemm_small_workspace_floats), 0 when none
    // Column tiles [first_col, last_col) of a block of rows through its k steps
    // from first_p up to last_p (all of k by default). `workspace`: the
    // thread's, reserved, holding op(A)'s panels when A is transposed.
    void run_block(const GemmArgs& g, const GemmKernel& ker, float* workspace, int64_t block, int64_t first_col,
                   int64_t last_col, int64_t first_p = 0, int64_t last_p = kAllOfK) const {
        const int64_t first_row = block * block_tiles;
        const float* packed_a = g.trans_a ? workspace : nullptr;
        float* b_panel = copies_b_panels(g, ker) ? workspace + packed_a_floats(g, ker) : nullptr;
        small_tiles(g, ker, height, k_step, packed_a, b_panel,
                    {first_col, last_col, first_row, std::min(row_tiles, first_row + block_tiles), first_p,
                     last_p == kAllOfK ? g.k : last_p});
    }
};

// The team's share of the work: a piece per claim (a block of rows by one
// column tile), each thread packing its own op(A) when it is transposed.
// Kept out of gemm_small_f32, whose one-thread path a 32^3 call takes: the
// claims' cursors make this frame 4 KiB, and setting it up was measurable there.
// With k_steps_outside (deep problems: GemmPlan::small_k_steps_outside) the
// pieces of each KC step are claimed so in turn, a barrier between steps: a
// tile's next step starts only once its last is done, wherever it ran.
__attribute__((noinline)) ridge_status run_small_team(const GemmArgs& g, const GemmKernel& ker, int threads,
                                                      const SmallSchedule& s, bool k_steps_outside) {
    const int64_t items = s.blocks * s.c_tiles;
    bool out_of_memory = false;
    const int team = int(std::min<int64_t>(threads, items));
    ClaimedShares pieces(items, team);  // a piece per claim: every piece of a block costs the same anywhere
    const int64_t k_per_round = k_steps_outside ? s.k_step : std::max<int64_t>(g.k, 1);  // all of k in one round
#pragma omp parallel num_threads(team)
    {
        // Every thread reserves before any thread writes C: out of memory leaves C untouched.
        float* workspace = reserve_small_packed_a(s.packed_floats);
        if (s.packed_floats > 0 && workspace == nullptr) {
#pragma omp atomic write
            out_of_memory = true;
        }
#pragma omp barrier
        bool failed;
#pragma omp atomic read
        failed = out_of_memory;
        if (!failed) {
            if (g.trans_a) pack_transposed_a(g, ker, workspace);
            for (int64_t p0 = 0; p0 == 0 || p0 < g.k; p0 += k_per_round) {
                // (Shares of threads OpenMP did not start are left over for the others.)
                // Blocks of rows in order, so a share stays in one block of A as long as it can.
                pieces.run_claimed(omp_get_thread_num(), [&](int64_t item) {
                    const int64_t column_tile = item % s.c_tiles;
                    s.run_block(g, ker, workspace, item / s.c_tiles, column_tile, column_tile + 1, p0,
                                std::min(g.k, p0 + k_per_round));
                });
                if (p0 + k_per_round < g.k) {  // another round: every piece of this one done, then dealt again
#pragma omp barrier
#pragma omp single
                    pieces.share_out(items);
                }
            }
        }
    }
    return out_of_memory ? RIDGE_OUT_OF_MEMORY : RIDGE_SUCCESS;
}

}  // namespace

ridge_status gemm_small_f32(const GemmArgs& g, const GemmKernel& ker, int threads, int64_t a_block_floats,
                            int64_t k_step, bool k_steps_outside) {
    // The kernel reads a column of op(A) as contiguous rows. Untransposed A is
    // already that; transposed A is packed into MR-row panels first, by every
    // thread into its own workspace: a copy made by another core would have to
    // cross to this one's L2, which measured slower than packing it again
    // (ridge-bench, 256^3 TN, 2 threads: 246-266 GFLOP/s from one shared copy,
    // 345-387 with one copy each; 192^3 TT 208-215 and 332).
    SmallSchedule s;
    s.k_step = std::max<int64_t>(1, k_step > 0 ? std::min(kc_step_depth(ker, k_step), g.k) : g.k);
    s.c_tiles = ceil_div(g.n, small_column_tile_width(g, ker));
    s.height = tile_height(g, ker);
    s.row_tiles = row_tile_count(g.m, s.height, ker.MR);
    s.block_tiles = tiles_per_row_block(g, s.height, s.row_tiles, a_block_floats);
    s.blocks = s.block_tiles == s.row_tiles ? 1 : ceil_div(s.row_tiles, s.block_tiles);
    s.packed_floats = gemm_small_workspace_floats(g, ker);
    k_steps_outside = k_steps_outside && !copies_b_panels(g, ker);  // (a copied column tile of B holds all of k)
    if (threads > 1 && s.blocks * s.c_tiles >= 2) return run_small_team(g, ker, threads, s, k_steps_outside);
    float* workspace = reserve_small_packed_a(s.packed_floats);
    if (s.packed_floats > 0 && workspace == nullptr) return RIDGE_OUT_OF_MEMORY;
    if (g.trans_a) pack_transposed_a(g, ker, workspace);
    // Deep problems (k_steps_outside; on a team, run_small_team): each k step
    // runs over all of C before the next, so a step's slice of op(A), m x KC,
    // stays in L2 for every column tile where the whole of op(A) would come
    // from L3 once per column tile; C, small for such problems (paths.cpp:
    // deep_enough_for_small_path), is what passes through L2 once per step
    // instead. Each tile still runs its k steps in order: the same bits.
    if (k_steps_outside) {
        for (int64_t p0 = 0; p0 == 0 || p0 < g.k; p0 += s.k_step)
            for (int64_t block = 0; block < s.blocks; ++block)
                s.run_block(g, ker, workspace, block, 0, s.c_tiles, p0, std::min(g.k, p0 + s.k_step));
        return RIDGE_SUCCESS;
    }
    for (int64_t block = 0; block < s.blocks; ++block) s.run_block(g, ker, workspace, block, 0, s.c_tiles);
    return RIDGE_SUCCESS;
}

}  // namespace ridge
