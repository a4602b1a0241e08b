// Timing GEMM plans the way a shared, noisy machine allows: warm up, then
// interleave the candidates round by round (so a slow spell hits all of them
// alike) and keep each one's median.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemm/gemm.h"

namespace ridge_tune {

// A square n x n x n problem with random A and B of `input` type, column-major, NN.
class Problem {
public:
    Problem(ridge::Dtype input, int64_t n) : Problem(input, n, n, n) {}
    // m x n x k, NN, every matrix packed tight (ld = its rows).
    Problem(ridge::Dtype input, int64_t m, int64_t n, int64_t k);
    ridge::GemmArgs args();
    double flops() const { return 2.0 * double(m_) * double(n_) * double(k_); }
    ridge::Dtype input() const { return input_; }

private:
    ridge::Dtype input_;
    int64_t m_, n_, k_;
    std::vector<uint8_t> a_, b_;
    std::vector<float> c_;
};

// One way of running a problem: a plan for the driver (kernel, blocking, threads, path).
using Plans = std::vector<ridge::GemmPlan>;

// GFLOP/s of each plan on `problem`: one warm-up call each, then `rounds`
// rounds in which every plan runs once (in a rotating order), each timing at
// least ~2 ms of calls; the median per plan.
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

// A blocked-path rule timed on and off: `with`'s paired speed-up over
// `without` on each fp32 shape {m, n, k} (time_plans over `rounds` rounds),
// one line per shape appended to *lines ("blocked path MxNxK (1 thread):
// <with_name> 1.234x of <without_name>") and one for the verdict. True where
// the geometric mean of the speed-ups is at least 1.01: on a shared VM two
// equal plans differ by about 1% in paired medians, and the library's
// built-in answer (the rule off) stands.
bool rule_pays(const ridge::GemmPlan& without, const ridge::GemmPlan& with,
               const std::vector<std::vector<int64_t>>& shapes, int rounds, const char* with_name,
               const char* without_name, std::vector<std::string>* lines);

// The driver's plan for `kernel` with `blocking` on one thread, blocked path.
ridge::GemmPlan blocked_plan(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking, int threads = 1);

}  // namespace ridge_tune
