// The driver's interface: one column-major problem, one plan for running it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "dispatch/registry.h"
#include "ridge/ridge.h"
#include "report/traffic.h"
#include "tuning/blocking.h"

namespace ridge {

// C = alpha * op(A) * op(B) + beta * C, all column-major (the API layer has
// already mapped row-major onto this by swapping operands). A and B hold
// `input` elements; C is fp32.
struct GemmArgs {
    Dtype input = Dtype::f32;
    bool trans_a = false, trans_b = false;
    int64_t m = 0, n = 0, k = 0;
    float alpha = 1.0f;
    const void* a = nullptr;
    int64_t lda = 1;
    const void* b = nullptr;
    int64_t ldb = 1;
    float beta = 0.0f;
    float* c = nullptr;
    int64_t ldc = 1;
};

struct GemmPlan {
    const GemmKernel* kernel = nullptr;
    BlockingParams blocking;  // MR and NR equal the kernel's
    int threads = 1;
    bool small_path = false;   // take gemm_small_f32 (fp32 input, kernel->small_f32 must exist)
    int64_t small_a_block_floats = 0;  // small path: op(A) per block of rows (dispatcher: small_path_a_block_floats)
    bool small_k_steps_outside = false;  // small path: KC steps outside its tiles (paths.cpp: deep_enough_for_small_path)
    bool skinny_path = false;  // take gemm_skinny_n (kernel->skinny, A untransposed, n <= kSkinnyMaxN)
    bool skinny_m_path = false;  // take gemm_skinny_m_f32 (m <= 48, B untransposed, kernel->few_rows must exist; above 16 rows few_rows_outer too)
    bool rows_in_place_path = false;  // take gemm_rows_in_place (A transposed, kernel->rows_in_place must exist)
    bool skinny_trans_a_path = false;  // take gemm_skinny_n_trans_a_f32 (the few-rows path on C^T: its conditions with m and n swapped; A transposed)
    bool skinny_trans_b_path = false;  // take gemm_skinny_m_trans_b (the skinny path on C^T: its conditions with m and n swapped; B transposed)
    // Blocked path: write C's full tiles with the kernel's non-temporal twin. Set by
    // the dispatcher only when the twin exists, beta = 0, k is one KC step and
    // every column of C starts at the same offset in a cache line (ldc a multiple
    // of 16 floats; gemm_blocked aligns the tiles to it: use_streaming_c).
    bool stream_c = false;
    // Blocked path: op(B) is larger than the last-level cache, so its micro-panels
    // come from memory (set by the dispatcher; see first_tile_reads_b_source).
    bool b_from_memory = false;
    // Blocked path: op(B) is larger than each thread's share of the last-level
    // cache (the whole cache for one thread; set by the dispatcher), where B is
    // read in place rather than packed (see first_tile_reads_b_source).
    bool b_beyond_cache_share = false;
    // C is larger than a quarter of the last-level cache (set by the
    // dispatcher: c_outgrows_cache in paths.cpp): ahead of kernel calls of few
    // k steps (GemmKernel::c_prefetched_ahead_below_kc), the blocked path's
    // macro-kernel prefetches the next tile of C (Schedule::prefetch_c_below_kc).
    bool c_outgrows_cache = false;
    // op(A) is larger than the last-level cache (set by the dispatcher): the
    // skinny sweep streams it from memory, which decides its chunk of k steps
    // (skinny_chunk_columns).
    bool a_from_memory = false;
    // Rows of op(A), all k of them, that come from a cache near enough for
    // the first micro-panel's tiles to pack each block of A (set by the
    // dispatcher, a_rows_within_cache in paths.cpp; 0: none): where the rows
    // a thread packs (all of m, or its row slice) are within it, the blocked
    // path packs A that way (packs_a_in_first_micro_panel in
    // blocked_schedule.cpp).
    int64_t a_rows_within_cache = 0;
    // op(B) fits the core's L2 (set by the dispatcher): where the blocked path,
    // with B packed per micro-panel, has every tile read B in place
    // (all_tiles_read_b_from_l2 in blocked_schedule.cpp).
    bool b_within_l2 = false;
    // Blocked path: columns of a KC-deep packed B panel that fit the share of L2
    // it gets where the driver runs the k steps outside the jc loop (set by the
    // dispatcher; 0: never, see runs_k_steps_outside_jc in blocked_schedule.cpp).
    int64_t b_panel_columns_in_l2 = 0;
    // Blocked path: rows of op(A) up to which one thread packs all of a KC
    // step's op(A) as one block, in L3, and runs the k steps outside the jc
    // loop (set by the dispatcher; 0: never, see packs_all_rows_as_one_block
    // in blocked_schedule.cpp).
    int64_t a_rows_in_l3 = 0;
    // Blocked path: the fewest rows of op(A) for that order, a packed block
    // that overflows L2 by half (set by the dispatcher; 0: no floor, see
    // packs_all_rows_as_one_block).
    int64_t a_rows_past_l2 = 0;
    // Blocked path: columns of a KC-deep packed B panel up to which one thread
    // runs a block's ir loop outside its jr loop (set by the dispatcher where
    // RuntimeConfig::blocked_ir_outside_jr allows it; 0: never, see
    // runs_ir_outside_jr in blocked_schedule.cpp).
    int64_t b_panel_columns_for_ir_outside_jr = 0;
    // Blocked path: A's leading dimension up to which one block of A is read
    // in place rather than packed (set by the dispatcher from
    // RuntimeConfig::blocked_a_in_place; 0: never, see reads_a_in_place in
    // blocked_schedule.cpp).
    int64_t a_in_place_max_lda = 0;
    // Blocked path, a team of slices (each thread its own columns or rows of C):
    // the micro-panels a step of the widest slice must have for the threads to
    // share them out (set by the dispatcher: kSlicePanelsToShare; 0: always).
    int64_t slice_panels_to_share = 0;
    // Few-rows path (skinny_m, skinny_trans_a), outer-product form: k steps per
    // pass over op(B), so that the share of the packed op(A) each group of
    // columns reads again stays in L2 (set by the dispatcher: few_rows_k_pass;
    // 0: all of k in one pass).
    int64_t few_rows_k_pass = 0;
    Traffic* traffic = nullptr;  // when reporting: the driver adds what its schedule moved
};

// A team of slices shares out its steps' micro-panels (gemm_blocked.cpp:
// PanelSharing) only where a step of the widest slice has at least this many:
// with a few, the static split is uneven by a whole panel (128 columns: 6
// panels against 5), the thread done first takes one of the other's last
// panels and runs it from the other core's packed A more slowly than its
// owner would, while the owner waits for it. Measured on the Intel VM (2
// threads, the blocked path's column slices, an experiment build switching
// sharing off: `RIDGE_NUM_THREADS=2 ridge-ab ON OFF N N N 9` with a profile
// keeping the small path off), without sharing: 112^3 1.757, 128^3 1.356,
// 128 x 128 x 1000 1.287, 160^3 1.077, 192^3 1.013, 256^3 1.004, 64 x 64 x
// 1000 1.018; from 16 panels a step on, sharing stays (384^3 1.004, 512^3
// 0.983, 768^3 1.020, 1024^3 0.995, 2000 x 200 x 2000 on row slices 0.981
// without it), as it carries a thread whose core is taken away for a while.
constexpr int64_t kSlicePanelsToShare = 16;

// Everything after argument checking: quick returns, alpha == 0, then the blocked path.
ridge_status gemm(const GemmArgs& args, const GemmPlan& plan);
// The same for the small path alone (gemm with a plan whose small_path is
// set, without building the plan: the dispatcher's way for a call it does
// not report on).
ridge_status gemm_small(const GemmArgs& args, const GemmKernel& kernel, int threads, int64_t a_block_floats,
                        int64_t k_step);

// Small problems: the kernel reads A and B in place (A packed only when transposed),
// op(A) in blocks of rows of at most `a_block_floats` floats each, plus an eighth
// (0: one block); `threads` split the tiles of C. k runs in steps of
// kc_step_depth(kernel, k_step) (k_step 0: all of k in one), each added into
// C as the blocked path adds its KC steps: given the blocked path's KC for
// the call, C comes out the same bit for bit on either path.
// `k_steps_outside`: each k step over all of C before the next,
// not each tile through all of k (GemmPlan::small_k_steps_outside), where B's
// column tiles are read in place (not small_path_copies_b).
ridge_status gemm_small_f32(const GemmArgs& args, const GemmKernel& kernel, int threads, int64_t a_block_floats,
                            int64_t k_step, bool k_steps_outside = false);
// Whether the small path copies B's column tiles first (where B's columns share L1 sets and m is large).
bool small_path_copies_b(const GemmArgs& args, const GemmKernel& kernel);
// Whether op(B)'s columns (ldb a multiple of the L1's 4 KiB set period) fall
// on the same L1 sets, for a kernel whose NR columns outnumber 8 ways (gemm_small.cpp).
bool b_columns_share_l1_sets(const GemmArgs& args, const GemmKernel& kernel);
// Columns per column tile of C on the small path (the kernel's NR, or fewer where B's columns share L1 sets).
int64_t small_column_tile_width(const GemmArgs& args, const GemmKernel& kernel);
// The blocks of rows that takes: B's columns are read once per block.
int64_t small_row_blocks(const GemmArgs& args, const GemmKernel& kernel, int64_t a_block_floats);

// Floats of the calling thread's packed-A buffer gemm_small_f32 needs (0: none).
size_t gemm_small_workspace_floats(const GemmArgs& args, const GemmKernel& kernel);
// The calling thread's buffer of that many floats (null when `floats` is 0 or out of memory).
float* reserve_small_packed_a(size_t floats);

// A batch of `count` column-major problems of one shape. Problem i is `shape`
// with its operands at a_list[i], b_list[i], c_list[i] when the lists are
// given (MKL's group batch, one group), else with shape's A, B and C moved by
// i strides (elements; a strided batch).
struct GemmBatch {
    GemmArgs shape;
    int64_t stride_a = 0, stride_b = 0, stride_c = 0;
    float* const* c_list = nullptr;  // given: the operands are listed, not strided
    // The lists of A and B: arrays of `const float*` for fp32 input, of `const
    // uint16_t*` for 16-bit (read as such by problem()); null, with c_list,
    // when nothing reads A and B.
    const void* a_list = nullptr;
    const void* b_list = nullptr;
    int64_t count = 0;
    GemmArgs problem(int64_t i) const;
};

// A batch whose problems each take the small path, spread over `threads`
// threads, a whole problem per thread at a time; every thread reserves its
// buffer before any C is written (gemm_batch.cpp). No two problems' C may overlap.
// `a_block_floats` and `k_step` as for gemm_small_f32.
ridge_status gemm_batch_small_f32(const GemmBatch& batch, const GemmKernel& kernel, int threads,
                                  int64_t a_block_floats, int64_t k_step);

// The depth of each KC step for `kernel` under a blocking's KC: a whole
// number of the kernel's k groups (bf16 K-pairs), so no group straddles two
// steps. The blocked path's steps, and the small path's where it keeps them.
inline int64_t kc_step_depth(const GemmKernel& kernel, int64_t KC) {
    return std::max<int64_t>(kernel.k_group, KC / kernel.k_group * kernel.k_group);
}

// Equal blocks of `count` items, as few as allow each at most `nominal` items
// plus an eighth (largest_equal_block): the items per block, the last one
// taking what is left (fewer by less than one per block). A nominal size
// itself would leave a thin last block that repeats a whole pass for a few
// items. The blocked path's jc blocks and the skinny sweep's blocks of rows.
inline int64_t largest_equal_block(int64_t nominal) { return nominal + nominal / 8; }
inline int64_t equal_block(int64_t count, int64_t nominal) {
    const int64_t largest = largest_equal_block(nominal);
    const int64_t blocks = (count + largest - 1) / largest;
    return (count + blocks - 1) / blocks;
}

// Few columns of C, A untransposed: A read once in place (gemm_skinny.cpp), in
// its input type (fp32, or fp16/bf16 where the kernel converts as it loads),
// for n up to kSkinnyMaxN (each thread keeps a chunk of B's rows, converted to
// fp32, in its workspace: at most 512 k steps x kSkinnyMaxN floats, 256 KiB).
constexpr int64_t kSkinnyMaxN = 128;
// a_from_memory: A is larger than the last-level cache (GemmPlan::a_from_memory).
ridge_status gemm_skinny_n(const GemmArgs& args, const GemmKernel& kernel, int threads, bool a_from_memory);
// Columns of A (k steps) per chunk of that sweep, for n columns of C, A of
// type `input`, streamed from memory or read from a cache, its columns lda
// elements apart; C is read and written once per chunk.
// `tall_tiles`: whether the sweep runs the kernel's tall tiles (skinny_sweep_chunk
// decides it as the sweep does).
int64_t skinny_chunk_columns(int64_t n, Dtype input, bool a_from_memory, int64_t lda, bool tall_tiles);
// The chunk of the sweep gemm_skinny_n runs for g with `kernel`, or, with
// on_c_transposed, of the one gemm_skinny_m_trans_b runs on C^T (a_from_memory
// then says whether B comes from memory).
int64_t skinny_sweep_chunk(const GemmArgs& g, const GemmKernel& kernel, bool a_from_memory, bool on_c_transposed);
// Rows of C per block of that sweep, nominally (a whole number of MR tiles;
// the sweep makes its blocks equal, each at most an eighth more): each block
// runs all of its chunks before the next, so its C stays in L2; fewer rows
// for an A from memory (the figures: gemm_skinny.cpp).
int64_t skinny_block_rows(int64_t n, int64_t MR, bool a_from_memory);
// Tiles per block where that sweep covers `tiles` MR-row tiles (equal_block of
// the nominal block), and the rows of its largest block: what its scratch copy
// of C holds, the nominal block plus an eighth.
int64_t skinny_tiles_per_block(int64_t tiles, int64_t n, int64_t MR, bool a_from_memory);
int64_t skinny_largest_block_rows(int64_t n, int64_t MR, bool a_from_memory);
// Whether that sweep updates each block of C in a scratch copy (ldc a multiple
// of 256 floats, where C's columns share L1 sets, and enough chunks to pay for
// the copies), memory permitting; C comes out bit for bit the same either way.
bool skinny_uses_c_scratch(const GemmArgs& args, const GemmKernel& kernel, bool a_from_memory);

// Few rows of C with B transposed (op(A) * B^T, m up to the skinny path's
// columns): C^T = B * op(A)^T run on the skinny path above, B read once in
// place down its columns; each block of C^T goes through a scratch copy,
// gathered from C's rows and scattered back (out of memory: C untouched).
// b_from_memory: B, the sweep's A, is larger than the last-level cache.
ridge_status gemm_skinny_m_trans_b(const GemmArgs& args, const GemmKernel& kernel, int threads, bool b_from_memory);

// Few rows of C (m <= 48): op(B) read once in place (fp32, or fp16/bf16 widened
// by the kernels), op(A) packed once as fp32 (gemm_skinny_m.cpp).
// k_pass: k steps per pass over op(B) in the outer-product form (0: all of k;
// GemmPlan::few_rows_k_pass).
ridge_status gemm_skinny_m_f32(const GemmArgs& args, const GemmKernel& kernel, int threads, int64_t k_pass);
// Bytes that path moves from L2 into L1 (for the call report): the packed op(A)
// once per group of columns, and op(B) once per tile height it passes.
double skinny_m_l2_to_l1_bytes(const GemmArgs& args, const GemmKernel& kernel);

// Few columns of C with A transposed (n <= 48; a row-major x * W^T): C^T =
// op(B)^T * A run on the few-rows path, A read once in place down its columns,
// op(B) packed once as fp32 (gemm_skinny_m.cpp). Same kernels as
// gemm_skinny_m_f32, which widen a 16-bit A's columns as they read them.
ridge_status gemm_skinny_n_trans_a_f32(const GemmArgs& args, const GemmKernel& kernel, int threads,
                                       int64_t k_pass);
double skinny_n_trans_a_l2_to_l1_bytes(const GemmArgs& args, const GemmKernel& kernel);

// Few columns of C with A transposed, read in place by kernel.rows_in_place
// (bf16 on AMX): op(B) pair-packed once into 32-column panels, op(A)'s rows
// (A's columns) streamed once in blocks of 32 (gemm_rows_in_place.cpp).
ridge_status gemm_rows_in_place(const GemmArgs& args, const GemmKernel& kernel, int threads);
// Bytes of op(B)'s packed panels on that path (n columns, k steps).
size_t rows_in_place_packed_b_bytes(int64_t n, int64_t k);

// The five loops around the microkernel. Requires m, n, k > 0 and alpha != 0.
ridge_status gemm_blocked(const GemmArgs& args, const GemmPlan& plan);

}  // namespace ridge
