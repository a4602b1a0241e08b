// Timing GEMM plans the way a shared, noisy machine allows: warm up, then
// interleave the candidates round by round (so a slow spell hits all of them
// alike) and keep each one's median.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemm/gemm.h"

namespace ridge_tune {

// Where a Problem's matrices start relative to 64-byte cache lines. What a
// call reads in place (the small path's A: paths.cpp, small_path_reads_a_on_lines)
// runs slower off a line, and malloc's placement is not fixed: glibc gives a
// large block 16 bytes past a page, until freeing such blocks raises its
// mmap threshold and later ones come from the heap at any multiple of 16.
// The searches that compare a path reading A in place fix it either way.
enum class Placement {
    as_allocated,  // wherever the vectors' allocations put them
    off_line,      // 16 bytes past a line: glibc malloc's large blocks
    on_line,       // on a line, as a caller that aligns its matrices has them
};
constexpr size_t kPlacementLineBytes = 64;
constexpr size_t kMallocOffLineBytes = 16;  // glibc: a large block's data after its 16-byte header

// Bytes from `address` (a multiple of 16, as malloc's) to where a matrix
// placed as `placement` says begins, within the next 64 (0 where it already
// does, and for as_allocated).
inline size_t bytes_to_placement(uintptr_t address, Placement placement) {
    if (placement == Placement::as_allocated) return 0;
    const size_t wanted = placement == Placement::off_line ? kMallocOffLineBytes : 0;
    const size_t at = address % kPlacementLineBytes;
    return (kPlacementLineBytes + wanted - at) % kPlacementLineBytes;
}

// A square n x n x n problem with random A and B of `input` type, column-major, NN.
class Problem {
public:
    Problem(ridge::Dtype input, int64_t n) : Problem(input, n, n, n) {}
    // m x n x k, NN, every matrix packed tight (ld = its rows), each starting as `placement` says.
    Problem(ridge::Dtype input, int64_t m, int64_t n, int64_t k, Placement placement = Placement::as_allocated);
    ridge::GemmArgs args();
    double flops() const { return 2.0 * double(m_) * double(n_) * double(k_); }
    ridge::Dtype input() const { return input_; }

private:
    ridge::Dtype input_;
    int64_t m_, n_, k_;
    std::vector<uint8_t> a_, b_;
    std::vector<float> c_;
    size_t a_at_ = 0, b_at_ = 0, c_at_ = 0;  // bytes from each vector's start to its matrix
};

// One way of running a problem: a plan for the driver (kernel, blocking, threads, path).
using Plans = std::vector<ridge::GemmPlan>;

// GFLOP/s of each plan on `problem`: one warm-up call each, then `rounds`
// rounds in which every plan runs once (in a rotating order), each timing at
// least ~2 ms of calls (a team's after one untimed call); the median per plan.
std::vector<double> interleaved_gflops(Problem& problem, const Plans& plans, int rounds);

// Both figures from the same rounds: each plan's median GFLOP/s, and its rate
// divided by plans[0]'s in the same round, the median over rounds. A slow
// spell or a clock change hits both sides of a pair, so the paired ratio is
// steadier than a ratio of medians (ratio[0] is 1).
struct Timed {
    std::vector<double> gflops;
    std::vector<double> ratio;
    std::vector<std::vector<double>> rates;  // GFLOP/s [plan][round]
    // Plan i's rate over plan j's in the same round, the median over rounds.
    double paired_ratio(size_t i, size_t j) const;
};
// min_calls: calls per timed sample at least (besides ~2 ms at least): a
// sample of one or two calls is mostly the first call after another plan
// ran, with the operands where that plan left them.
Timed time_plans(Problem& problem, const Plans& plans, int rounds, int min_calls = 1);

// Seconds of one call of `plan` on `problem` (one timed call after a warm-up):
// what the search budgets with.
double seconds_per_call(Problem& problem, const ridge::GemmPlan& plan);

// A shape a blocked-path rule is timed on: fp32 m x n x k, NN, every matrix
// placed as `placement` says.
struct RuleShape {
    int64_t m, n, k;
    Placement placement = Placement::as_allocated;
};

// At least this much of A (fp32) where a rule is timed with A from memory:
// past the last-level cache of any machine measured (32 MiB of L3 per CCD on
// the Zen VMs). The library's own L3 while it is being tuned can be a 4 MiB
// fallback (the Intel and Zen 5 VMs' hwloc figures are rejected; the measured
// one reaches the library through the profile the run writes): rows from
// that alone timed the A-packing twin at 1024 and 2048 rows x 4096 (A of 16
// and 32 MiB, within the real L3).
constexpr double kRuleMinABytesFromMemory = 64.0 * 1024 * 1024;

// A blocked-path rule timed on and off: `with`'s paired speed-up over
// `without` on each shape (time_plans over `rounds` rounds), one line per
// shape appended to *lines ("blocked path MxNxK (1 thread): <with_name>
// 1.234x of <without_name>", with where the matrices start if fixed) and one
// for the verdict. True where the geometric mean of the speed-ups is at least
// 1.01 and, measured again, is so a second time (rule_verdict.h:
// rule_confirmed); otherwise `without`, the library's built-in answer, stands
// (the rule off; for the one block of A, on: one_block_of_a.cpp).
bool rule_pays(const ridge::GemmPlan& without, const ridge::GemmPlan& with, const std::vector<RuleShape>& shapes,
               int rounds, const char* with_name, const char* without_name, std::vector<std::string>* lines);

// The driver's plan for `kernel` with `blocking` on one thread, blocked path.
ridge::GemmPlan blocked_plan(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking, int threads = 1);
// The blocked path's plan for `problem` as the dispatcher makes it with
// `blocking` as the kernel's (dispatch.h: blocked_plan_for_call) plus its C streaming: the
// blocking adjusted to the call's k and rows (KC = k for a k that fits one
// step, ...) and what the driver decides from where the operands fit (B read
// in place from L2, A packed by the first micro-panel, ...). A search that
// compares another path with the blocked one compares it with this: on the
// Intel VM blocked_plan ran 141-148 GFLOP/s at 96^3-128^3 on one thread where
// the library's plan runs 161-167, and 2-3% slower at 384^3-512^3; the small
// path's crossover measured against it sent 96^3-192^3 to the small path,
// which the library's blocked path beats there by 2-7% with A off its cache
// lines (paths.cpp: small_path_reads_a_on_lines).
ridge::GemmPlan dispatched_blocked_plan(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                                        int threads, Problem& problem);

}  // namespace ridge_tune
