// The bounded empirical refinement around the model's point: block sizes per
// kernel, then the small-path and threading crossovers.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "timing.h"

namespace ridge_tune {

// A deadline the search spends against, with a share set aside for each stage.
class Budget {
public:
    explicit Budget(double seconds);
    double left() const;          // seconds until the deadline
    double elapsed() const;
    double total() const { return total_; }

private:
    double total_;
    std::chrono::steady_clock::time_point start_;
};

struct Trial {
    ridge::BlockingParams blocking;
    double gflops = 0;            // geometric mean over the kernel's sizes
    std::vector<double> ratio;    // per size, paired ratio to the point current at its stage
};

// The search for one kernel: its model point, the point chosen and how both ran.
struct KernelSearch {
    ridge::Dtype input = ridge::Dtype::f32;
    const ridge::GemmKernel* kernel = nullptr;
    std::vector<int64_t> sizes;          // square n the objective averages over
    ridge::BlockingParams model;         // the Low et al. point on the tuner's caches
    ridge::BlockingParams chosen;        // what the profile will say
    std::vector<double> model_gflops;    // per size, final interleaved comparison
    std::vector<double> chosen_gflops;
    std::vector<Trial> trials;           // everything the search measured, in order
    bool searched = false;               // false: chosen is the model's point, unmeasured
    bool only_when_asked = false;        // a kernel the library runs here only under RIDGE_ISA (search_blocking_mc)
    std::string note;                    // how chosen came about
};

// Refines `s.model` into `s.chosen` within `seconds`: KC first (MC moved
// with it so that the A block keeps its L2 footprint, and alone), then MC,
// then NC. Candidates are compared by paired ratios to the current point
// (time_plans); a move must gain more than 1% in the geometric mean over the
// sizes and keep 98% at each. Ends with the model's point against the chosen
// one (at least 9 rounds): the chosen point stands only if it gains 1% and
// keeps 99% at every size, else the model's is kept.
void search_blocking(KernelSearch& s, double seconds);

// For a kernel the library runs here only when asked to (RIDGE_ISA=avx2 on an
// AVX-512 machine), in a few seconds of the budget: the model's point (which
// fills L2 with the block of A but for a way or two) against 3/4 of its MC,
// taken where it is at least as fast (any gain in the geometric mean, no
// size below 99%), then the same final comparison with that gain. On the
// Intel VM the model's MC 896 ran 1.4 MB blocks of A at 2048^3 and lost to
// MC 672 by 0-7% from run to run (ridge-tune's rounds: 1.006, 1.02, 1.07;
// `RIDGE_ISA=avx2 PROFILE_B=... ridge-ab LIB LIB n n n 11`: 1024^3 1.032,
// 2048^3 1.028), never the other way; with the full search's 1% margin a
// smaller MC was taken in two tuner runs of four (the main job's not among
// them: its AVX2 2048^3 then ran 83.5% of the AVX2 peak). Half the model's MC lost 2% at 512^3 (two blocks of A for
// one), and more than the model's 15% at 1024^3-2048^3.
void search_blocking_mc(KernelSearch& s, double seconds);

// `--exhaustive`: every point of a grid around the model (KC and MC from
// a quarter to three times the model's, NC half to twice), one round each; the
// best few again, 7 rounds; then per size the best of those, the searched and
// the model's point head to head, 11 rounds, interleaved.
struct GridResult {
    std::vector<int64_t> sizes;
    std::vector<double> best_gflops, chosen_gflops, model_gflops;  // per size
    std::vector<ridge::BlockingParams> best_blocking;               // per size
    int points = 0;
    double seconds = 0;
};
GridResult exhaustive_grid(const KernelSearch& s);

// The fp32 small path (A and B read in place) against the blocked path, square
// sizes from 64 up: the largest m*n*k up to which the small path keeps up.
// The thread thresholds: 1 against 2 threads on the blocked path, and on the
// small path, the first size from which the second thread pays.
struct Crossover {
    double small_max_volume = 0;           // alone and on a team
    double small_max_volume_alone = 0;     // on one thread (0: it never kept up, where measured)
    bool small_alone_measured = false;     // false: not measured, or cut short within the built-in limit
    double small_max_volume_alone_lined_a = 0;  // on one thread with A on cache lines (0: not measured)
    std::string small_not_measured;        // why small_max_volume was not measured (empty: it was)
    int64_t skinny_max_columns[3] = {};    // by Dtype; 0: not measured (no skinny kernel, or out of time)
    double min_flops_per_thread = 0;       // 0: not measured (one core, or never pays)
    double small_min_flops_per_thread = 0; // 0: not measured (one core, no small kernel, or never pays)
    std::vector<std::string> lines;        // what was measured, for the profile and the log
};
// `threads`, `min_flops_per_thread` and `small_min_flops_per_thread`: both paths
// are timed on one thread and on as many as the library would give each path at
// each size. `max_a_floats`: the library's limit on op(A) for the small path (no
// size above it is timed).
void search_small_crossover(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking, int threads,
                            double min_flops_per_thread, double small_min_flops_per_thread, double max_a_floats,
                            double seconds, Crossover* out);
// After it, the one-thread limit again with the matrices on cache lines, from
// the sizes past the limit measured without (paths.cpp: small_path_reads_a_on_lines).
void search_small_crossover_lined_a(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                                    double max_a_floats, double seconds, Crossover* out);
void search_thread_threshold(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                             double seconds, Crossover* out);
void search_small_thread_threshold(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                                   double seconds, Crossover* out);
// The skinny path (A read once in place) against the blocked path on the
// decode shape, 4096 x n x 4096 of `input`, one thread each, n from 32 up to
// the driver's limit: the widest n up to which the skinny path keeps up (24
// when it loses already at 32: below that the dispatcher's own rule holds).
void search_skinny_crossover(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                             ridge::Dtype input, double seconds, Crossover* out);

}  // namespace ridge_tune
