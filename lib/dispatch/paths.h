// What the entry points (dispatch.cpp) and the one-time configuration (runtime_config.cpp)
// take from the per-call path rules (paths.cpp): the built-in figures, and each rule's decision.
#pragma once

#include <cstdint>

#include "dispatch/dispatch.h"

namespace ridge {

// A thread must get at least this much work to pay for waking it: a fork/join
// of an OpenMP team costs a few microseconds, and 8 MFLOP is ~40 us of one
// core's fp32 FMA throughput, so the overhead stays within a few percent.
constexpr double kMinFlopsPerThread = 8e6;

// The small path's team only splits the columns of C (no shared packing, no
// barrier), so a second thread pays for much less work. Measured, ridge-bench,
// NN squares on the small path, 2 threads against 1 (profiles forcing each,
// alternating): 64^3 0.85x, 80^3 1.17-1.19x, 96^3 1.38x, 112^3 1.47x, 128^3
// 1.56x, 192^3 1.76x. From 96^3 on: a thread per 96^3 flops (half of 2 * 96^3).
constexpr double kSmallMinFlopsPerThread = 96.0 * 96.0 * 96.0;

// The small path reads op(A) many times in place (once per NR columns of C), and
// packs all of it when transposed: only worth it while op(A) stays in L2, or
// where its rows are read in blocks that do (small_path_a_block_floats).
// 256 Ki floats (1 MiB, padded to whole MR panels) is the smallest L2 of current x86 cores.
constexpr double kSmallPathMaxAFloats = 256.0 * 1024.0;
// The largest C (m*n) that a deep k sends to the small path past the volume
// limits, on a team and on one thread (paths.cpp: small_c_deep_k, measured there).
constexpr double kSmallCDeepKMaxFloats = 256.0 * 192.0;
constexpr double kSmallCDeepKMaxFloatsAlone = 128.0 * 128.0;

// bf16 on the vdpbf16ps kernel (GemmChoice::in_place_sibling) has no kernels
// that read an operand in place: with it alone, a decode step's few columns
// or few rows were packed for the blocked path. Up to this many rows or
// columns of C the in-place paths run on the converting kernel's kernels
// instead (A or B widened to fp32 as read); beyond, the blocked path's
// vdpbf16ps (twice an FMA's flops per instruction) wins even so. Measured on
// the Zen 5 VM, 1 thread, GFLOP/s, vdpbf16ps blocked / in place converting
// (RIDGE_ISA=avx512), 4096 x n x 4096: n = 4 37.7 / 86.7, 8 71.3 / 143.9, 16
// 119.7 / 144.5, 20 145.2 / 155.7, 24 174.5 / 157.5, 32 196.5 / 160.1, 64
// 260.0 / 153.5; m x 4096 x 4096: m = 8 58.6 / 116.9, 16 119.0 / 135.3, 32
// 235.3 / 196.8, 48 224.9 / 161.9; TN n = 4 50.9 / 110.1, 8 98.3 / 114.8, 16
// 131.9 / 128.8; NT m = 16 71.8 / 143.5, 64 233.4 / 167.0.
constexpr int64_t kInPlaceSiblingMaxWidth = 16;

// How far ahead the GEMV kernels prefetch an A that comes from DRAM, unless
// the profile says otherwise: 256 elements, 8 lines of 16-bit and 16 of fp32
// per column, the best measured for either on the Intel host of earlier
// sessions (gemv_avx512.cpp has the figures). Machines differ: on the Zen 4
// VM the hardware prefetchers alone streamed faster (no software prefetch
// against 256 ahead, 1 thread, paired: fp32 N 1.22-1.37, T 1.12-1.13, bf16
// N 1.09-1.20, T 1.11 at 4096^2-16384^2), so ridge-tune measures both and
// writes the faster to the profile (search_gemv_prefetch).
constexpr int64_t kGemvPrefetchElements = 256;

// Rows the skinny path needs past kSkinnyNarrowColumns columns; more, and it may take its full width (use_skinny_path).
constexpr int64_t kSkinnyWideMinRows = 512;

// What a call on the small path runs with (takes_small_path).
struct SmallPathCall {
    int64_t a_block_floats = 0;  // small_path_a_block_floats
    int threads = 1;             // threads_for at the small path's rate
    BlockingParams k_steps;      // small_path_k_steps
};
// Whether fp32 takes the small path at the configured volume, and with what: the first rule every call asks.
bool takes_small_path(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g, SmallPathCall* call);
// The small path's m*n*k limit for a call on `threads` threads (flops: 2mnk);
// negative where it must leave the call to an in-place path (a team's would).
double small_path_limit(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g, int threads,
                        double flops);
// Whether fp32 takes the small path (A and B read in place) up to max_volume m*n*k.
bool use_small_path(const RuntimeConfig& cfg, const GemmKernel& kernel, const GemmArgs& g, double max_volume);
// The small path's m*n*k limit for a call it would run on one thread: by
// whether A's columns start on cache lines (cfg.small_max_volume_alone_lined_a) or not.
double small_path_limit_alone(const RuntimeConfig& cfg, const GemmArgs& g);
// Whether a call the blocked path would run alone (one thread) takes the small path instead.
bool small_path_alone(const RuntimeConfig& cfg, const GemmPlan& plan, const GemmArgs& g);
// Whether a small C over a deep k (more than one KC step) takes the small path, on a team or alone.
bool small_c_deep_k(const RuntimeConfig& cfg, const GemmPlan& plan, const GemmArgs& g);
// Whether a deep problem (op(A) beyond half of L2, C within it) takes the small path a KC step at a time.
bool deep_enough_for_small_path(const RuntimeConfig& cfg, const GemmPlan& plan, const GemmArgs& g);
// The small path's blocking: only its KC matters, the blocked path's for the same call (so the same bits).
BlockingParams small_path_k_steps(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g);

// The kernel the in-place paths (few rows or columns) take their kernels from: the chosen one, or its sibling.
const GemmKernel& in_place_reader(const GemmChoice& choice, const GemmArgs& g);
// Whether the few-rows path takes the call: B read once in place, down its columns, against A packed once.
bool use_skinny_m_path(const GemmKernel& kernel, const GemmArgs& g);
// Whether the skinny path takes the call: few columns of C, A untransposed and read once in place.
bool use_skinny_path(const RuntimeConfig& cfg, const GemmKernel& kernel, const GemmArgs& g);
// Whether few columns with A transposed take the few-rows path on C^T, A read in place down its columns.
bool use_skinny_trans_a_path(const GemmKernel& kernel, const GemmArgs& g);
// Whether few columns with A transposed stream A once on a kernel that reads op(A)'s rows in place (AMX).
bool use_rows_in_place_path(const GemmKernel& kernel, const GemmArgs& g);
// Whether few rows with B transposed take the skinny path on C^T, B read in place down its columns.
bool use_skinny_trans_b_path(const RuntimeConfig& cfg, const GemmKernel& kernel, const GemmArgs& g);
// The path past the small path's limits that reads a few rows or columns in
// place, in the order the dispatcher asks (none: the blocked path's five loops).
enum class InPlacePath { none, skinny_m, skinny, skinny_trans_a, rows_in_place, skinny_trans_b };
InPlacePath in_place_path(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g);
// k steps per pass of the few-rows path's outer form over `rows` rows (m, or n on C^T); 0: one pass.
int64_t few_rows_k_pass(int64_t rows, int64_t k);

// Rows of op(A) (k deep, as stored) that fit L2.
int64_t a_rows_within_l2(const GemmArgs& g);
// Rows of op(A) the blocked path's first micro-panel may pack (GemmPlan::a_rows_within_cache).
int64_t a_rows_within_cache(const RuntimeConfig& cfg, const GemmArgs& g);
// Whether op(A) / op(B), as stored, fits L2 (GemmPlan::b_within_l2).
bool a_within_l2(const GemmArgs& g);
bool b_within_l2(const GemmArgs& g);
// Whether op(A) is larger than the last-level cache (GemmPlan::a_from_memory).
bool a_comes_from_memory(const RuntimeConfig& cfg, const GemmArgs& g);
// Whether op(B) is larger than the last-level cache (GemmPlan::b_from_memory).
bool b_comes_from_memory(const RuntimeConfig& cfg, const GemmArgs& g);
// Whether C is larger than a quarter of the last-level cache (GemmPlan::c_outgrows_cache).
bool c_outgrows_cache(const RuntimeConfig& cfg, const GemmArgs& g);
// The blocking the blocked path runs a call with: the kernel's, adjusted to the call's k and rows.
BlockingParams blocked_path_blocking(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g,
                                     bool b_from_memory);
// Whether the blocked path writes C with non-temporal stores: only where they cannot hurt.
bool use_streaming_c(const RuntimeConfig& cfg, const GemmPlan& plan, const GemmArgs& g);

}  // namespace ridge
