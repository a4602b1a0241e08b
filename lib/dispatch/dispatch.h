// Picks the kernel, the blocking and the thread count for a call.
#pragma once

#include <cstdint>

#include "gemm/gemm.h"
#include "gemm/gemv.h"
#include "tuning/profile.h"
#include "util/fixed_text.h"

namespace ridge {

// The kernel and blocking for one input type.
struct GemmChoice {
    const GemmKernel* kernel = nullptr;
    BlockingParams blocking;
    bool blocking_from_profile = false;  // else from the Low et al. model
    // When `kernel` has no kernels that read an operand in place (skinny, few
    // rows: bf16 on the vdpbf16ps kernel), the same input type's kernel whose
    // kernels the in-place paths run instead, up to kInPlaceSiblingMaxWidth
    // rows or columns of C (paths.h); else null.
    const GemmKernel* in_place_sibling = nullptr;
};

// What the library decided once, at first use.
struct RuntimeConfig {
    Isa isa = Isa::ref;                  // the highest ISA kernels are taken from
    FixedText<160> isa_reason;           // why that ISA (RIDGE_ISA, CPUID, ...)
    GemmChoice choices[3];               // indexed by Dtype
    const GemvKernel* gemv[3] = {};      // indexed by Dtype
    FixedText<160> bf16_reason;          // why bf16 runs on the kernel it does
    int default_threads = 1;             // RIDGE_NUM_THREADS, else OpenMP's max threads
    bool verbose = false;                // RIDGE_VERBOSE
    // Crossovers: built-in figures, or the tuned profile's.
    double small_max_volume = 0;         // m*n*k up to which fp32 takes the unpacked small path on a team
    // ... on one thread, op(A) off cache lines (paths.cpp: small_path_limit_alone)
    double small_max_volume_alone = 0;
    // ... on one thread, op(A)'s columns on cache lines (at least small_max_volume_alone)
    double small_max_volume_alone_lined_a = 0;
    double small_max_a_floats = 0;       // ... while op(A) padded to MR rows has at most this many floats
    // The small path's blocks of rows of op(A): half of L2 each (the rest for
    // B's columns, C's tiles and the other operand's lines), so a block stays in
    // L2 while every NR columns of C read it again. op(A) up to that size is
    // one block; 512^3 on a 1 MiB L2 is two blocks of 256 rows (see
    // small_path_a_block_floats for when the blocks apply).
    int64_t small_a_block_floats = 0;
    int64_t skinny_max_columns[3] = {};  // by Dtype: A untransposed takes the skinny path up to this many columns
    double min_flops_per_thread = 0;     // a thread is woken only for at least this much work
    double small_min_flops_per_thread = 0;  // ... on the small path (its team shares no packing)
    double last_level_cache_bytes = 0;   // the L3 one caller sees (the topology's): beyond it, from memory
    double stream_c_min_bytes = 0;       // a C written once and at least this large is streamed out: the L3,
                                         // or the one ridge-tune measured where hwloc's was rejected (a profile)
    double gemv_from_memory_min_bytes = 0;  // a GEMV's A at least this large comes from DRAM (the LLC): prefetched,
                                            // and the kernel's n_from_memory
    int64_t gemv_prefetch_elements = 0;  // ... this far ahead (0: left to the hardware prefetchers)
    bool blocked_a_in_place = false;     // the blocked path may read a block of A in place (reads_a_in_place,
                                         // blocked_schedule.cpp): where a profile says it pays here
    bool blocked_ir_outside_jr = false;  // the blocked path may run a block's ir loop outside jr
                                         // (runs_ir_outside_jr, blocked_schedule.cpp): where a profile says so
    bool blocked_a_packed_while_computing_from_memory = false;  // the first micro-panel packs a block of A
                                         // from memory as it computes, for few columns of C
                                         // (a_rows_within_cache, paths.cpp): where a profile says so
    bool blocked_one_block_of_a = true;  // one thread may pack all of op(A)'s rows as one block in L3
                                         // (packs_all_rows_as_one_block, blocked_schedule.cpp): unless a
                                         // profile says the five loops' blocks are faster here
    FixedText<320> profile_note;         // which profile was applied, or why none was
    const GemmChoice& gemm(Dtype input) const { return choices[int(input)]; }
};
const RuntimeConfig& runtime_config();

// The crossover figures built into the library: what applies when no profile
// gives one (so also what a figure ridge-tune leaves out of a profile falls back to).
struct BuiltInCrossovers {
    double small_max_volume;
    int64_t skinny_max_columns[3];  // by Dtype
    int64_t gemv_prefetch_elements;  // how far ahead GEMV prefetches an A from DRAM
};
BuiltInCrossovers builtin_crossovers();
// The skinny path's widest C past which the crossover (skinny_max_columns,
// measured with one thread streaming A from memory) does not reach: with
// several threads, or A in a cache, and at most 512 rows (kSkinnyWideMinRows)
// or A's columns a multiple of 8 KiB apart, the skinny path stops here
// (paths.cpp: use_skinny_path).
constexpr int64_t kSkinnyMaxColumnsShared = 64;

// Threads for a problem of `flops` from the calling thread: 1 inside a caller's
// parallel region, else the thread's setting capped so each thread gets at least
// min_flops_per_thread (the configured one of the blocked path by default).
int threads_for(double flops, double min_flops_per_thread);
int threads_for(double flops);

// op(A) per block of rows on the small path for depth k (GemmPlan::small_a_block_floats):
// RuntimeConfig::small_a_block_floats while a column tile of B (k x NR floats)
// is smaller than L1; 0 (one block) when deeper: reading B's columns again for
// each block then cost more than A's reuse in L2 gained. Measured on the Zen 5
// VM (1 MiB L2, 48 KiB L1; `ridge-ab OLD NEW M N K 11`, blocks / one block, 1
// thread): 512^3 1.09-1.13 (2 threads 1.10), 512 x 256 x 512 1.12, 512^3 TN
// 1.02; deeper (B's tile 48 KiB and more), 64 x 64 x 4096 0.97, 128 x 256 x
// 2048 0.97, 512 x 128 x 1024 0.98. The limit was half of L1 then, which on
// the Zen 4 (32 KiB L1) left k = 342-682 in one block, where an A tile (32 x k
// floats, 43-85 KiB) passing through L1 between two reads of B's tile leaves
// it to come from L2 either way. Blocks against one block there
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW n n n 15`, the range over runs in
// separate processes, whose A/A control, two copies of one build, ran
// 1.000-1.005 in the same hour): 512^3 1.003-1.018 (five runs), 480^3
// 1.012-1.026 (four), 448^3 1.008-1.032 (five), 416^3 1.015, 384^3 1.011,
// 384 x 384 x 640 1.017, 320 x 320 x 640 1.014, 512^3 TN 0.999; deeper, 128 x
// 256 x 2048 0.993, 64 x 64 x 4096 1.001 (so still one block); 2 threads
// 512^3 0.998, 448^3 1.000.
int64_t small_path_a_block_floats(const GemmKernel& kernel, int64_t k);

// The deepest KC whose packed micro-panel of B (NR columns) takes at most
// three quarters of L1, the rest left to the A panel streaming through and
// the tile of C: 512 for the 32 x 12 fp32 kernel in a 32 KiB L1, 1024 for its
// bf16-pair twin. A multiple of the panels' depth alignment (pack.h). The
// one-step rule's bound (blocking_for_k_in_one_step), and ridge-tune's
// deepest KC candidate.
int64_t deepest_kc_in_l1(const GemmKernel& kernel);

// Whether an operand of `bytes` is larger than the last-level cache, so that a
// call streams it from memory (GemmPlan::a_from_memory and b_from_memory).
bool exceeds_last_level_cache(const RuntimeConfig& cfg, double bytes);

// Whether op(B) of g is larger than each thread's share of the last-level
// cache, for a team of `threads` (the whole cache for one): GemmPlan::
// b_beyond_cache_share, where the blocked path reads B in place.
bool b_beyond_cache_share(const RuntimeConfig& cfg, const GemmArgs& g, int threads);

// The blocked path's limits that follow from a plan's blocking and kernel
// alone (GemmPlan::b_panel_columns_in_l2, a_rows_in_l3 and
// b_panel_columns_for_ir_outside_jr), set as the dispatcher sets them for
// every call: ridge-tune times its candidate blockings with them, so that it
// times the loop order the library will run.
void set_blocked_path_limits(GemmPlan* plan);
// The blocked path's plan for the call `g` on `threads` threads with `choice`'s
// kernel and blocking, as the dispatcher makes it before choosing among the
// paths: where the operands fit (memory, the cache, L2), the blocking adjusted
// to the call (blocked_path_blocking), the limits above. ridge-tune compares
// other paths with this plan, so that it compares them with what the library runs.
GemmPlan blocked_plan_for_call(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g, int threads);
// The B panel's columns up to which a block's ir loop may run outside jr
// (GemmPlan::b_panel_columns_for_ir_outside_jr) where the machine's
// RuntimeConfig::blocked_ir_outside_jr allows it: ridge-tune times the order.
int64_t b_panel_columns_for_ir_outside_jr(const BlockingParams& bp, const GemmKernel& kernel);
// The rows of op(A) up to which one thread packs a KC step's op(A) as one block
// (GemmPlan::a_rows_in_l3) where RuntimeConfig::blocked_one_block_of_a allows
// it: ridge-tune times that order against the five loops' blocks.
int64_t a_rows_in_l3(const BlockingParams& bp, const GemmKernel& kernel);
// The fewest rows for that order (GemmPlan::a_rows_past_l2): a KC-deep
// packed block of at least one and a half times L2.
int64_t a_rows_past_l2(const BlockingParams& bp, const GemmKernel& kernel);

// Plan and run one checked, column-major GEMM.
ridge_status dispatch_gemm(const GemmArgs& args);

// A checked batch of column-major problems of one shape (gemm.h's GemmBatch:
// strided, or lists of operands). Problems that take the small path are
// spread over the threads, whole problems per thread, unless two of a list's
// C overlap (then they run in order, as a loop of calls would); any other
// shape runs its problems one after another, each threaded as one call would
// be. Each C is bit-identical to a single call on that problem. Out of memory
// leaves every C untouched: the team reserves first, and a sequential batch
// can only fail at its first problem (its buffers then hold enough for the rest).
ridge_status dispatch_gemm_batch(const GemmBatch& batch);

// The same with an fp16 C (cblas_hgemm): args.c and args.ldc are ignored; C is
// converted to an fp32 copy (not read when beta == 0), multiplied into, and
// rounded back to fp16 once. C is untouched unless the call succeeds.
ridge_status dispatch_gemm_f16_output(GemmArgs args, uint16_t* c, int64_t ldc);

// Plan and run one checked GEMV.
ridge_status dispatch_gemv(const GemvArgs& args);

// Per-calling-thread thread count (0 = default).
void set_thread_count_override(int threads);
int thread_count_override();

// Process-wide thread count, for every thread without its own override
// (0 = default: RIDGE_NUM_THREADS, then OpenMP's).
void set_process_thread_count(int threads);

// The threads a call from this thread may use: its own override, else the
// process-wide count, else the default.
int wanted_thread_count();

}  // namespace ridge
