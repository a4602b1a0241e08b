#include "search.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <string>
#include <vector>

#include "cut_short.h"
#include "dispatch/dispatch.h"
#include "peak.h"

namespace ridge_tune {
namespace {

using ridge::BlockingParams;
using ridge::GemmKernel;

// Shares of a kernel's search time: KC moves the most (L1 and, through MC,
// L2), NC the least (it only matters once n exceeds it); the rest confirms.
constexpr double kShareKC = 0.40, kShareMC = 0.30, kShareNC = 0.12, kShareFinal = 0.18;

// A move must beat the current point by this much: on a shared VM two equal
// points differ by ~1% in medians of 3-5 rounds.
constexpr double kMinGain = 1.01;
// search_blocking_mc's gain for its one candidate, 3/4 of the model's MC: any
// (see search.h).
constexpr double kMinGainSmallerBlock = 1.0;
constexpr double kMaxLossAtOneSize = 0.98;
constexpr double kMaxLossFinal = 0.99;
// Rounds of each final comparison at least, whatever its share of the time.
// Fewer for the kernel the library runs only when asked (search_blocking_mc,
// AVX2 where AVX-512 runs): a round of its two sizes takes ~0.24 s on the
// Intel VM of model 207, and at 9 rounds its two final comparisons alone took
// 8.7 of its 8 s (15.8 s in all, ridge-tune 63.6 s against its 60 s budget).
constexpr int kFinalMinRounds = 9;
constexpr int kFinalMinRoundsOnlyWhenAsked = 5;

int64_t round_to(double x, int64_t multiple) {
    return std::max<int64_t>(multiple, int64_t(std::llround(x / double(multiple))) * multiple);
}

// KC stays a multiple of 8 (the model's panel alignment) and of the kernel's k group.
int64_t kc_multiple(const GemmKernel& k) { return std::lcm<int64_t>(8, k.k_group); }

// `base` with KC scaled by `f`; MC scaled the other way so that the MC x KC
// block of A keeps the L2 footprint the model gave it.
BlockingParams scale_kc(const GemmKernel& k, const BlockingParams& base, double f) {
    BlockingParams b = base;
    b.KC = round_to(double(base.KC) * f, kc_multiple(k));
    b.MC = round_to(double(base.MC) * double(base.KC) / double(b.KC), k.MR);
    return b;
}
// KC scaled with MC left alone: a smaller A block, for when L2 is not the limit.
BlockingParams scale_kc_alone(const GemmKernel& k, const BlockingParams& base, double f) {
    BlockingParams b = base;
    b.KC = round_to(double(base.KC) * f, kc_multiple(k));
    return b;
}
BlockingParams scale_mc(const GemmKernel& k, const BlockingParams& base, double f) {
    BlockingParams b = base;
    b.MC = round_to(double(base.MC) * f, k.MR);
    return b;
}
BlockingParams scale_nc(const GemmKernel& k, const BlockingParams& base, double f) {
    BlockingParams b = base;
    b.NC = round_to(double(base.NC) * f, k.NR);
    return b;
}

bool same(const BlockingParams& a, const BlockingParams& b) { return a.KC == b.KC && a.MC == b.MC && a.NC == b.NC; }

std::vector<BlockingParams> unique(std::vector<BlockingParams> v) {
    std::vector<BlockingParams> out;
    for (const BlockingParams& b : v)
        if (std::none_of(out.begin(), out.end(), [&](const BlockingParams& o) { return same(o, b); })) out.push_back(b);
    return out;
}

double geomean(const std::vector<double>& v) {
    double log_sum = 0;
    for (double x : v) log_sum += std::log(std::max(x, 1e-9));
    return v.empty() ? 0 : std::exp(log_sum / double(v.size()));
}

// Per candidate and size: median GFLOP/s, and the paired ratio to candidates[0]
// (see time_plans), interleaved within each size.
struct Measured {
    std::vector<std::vector<double>> gflops;  // [candidate][size]
    std::vector<std::vector<double>> ratio;   // [candidate][size], to candidate 0
};
Measured measure(const KernelSearch& s, std::vector<Problem>& problems, const std::vector<BlockingParams>& candidates,
                 int rounds) {
    Plans plans;
    for (const BlockingParams& b : candidates) plans.push_back(blocked_plan(*s.kernel, b));
    Measured m{std::vector<std::vector<double>>(candidates.size()), std::vector<std::vector<double>>(candidates.size())};
    for (Problem& p : problems) {
        const Timed t = time_plans(p, plans, rounds);
        for (size_t i = 0; i < candidates.size(); ++i) {
            m.gflops[i].push_back(t.gflops[i]);
            m.ratio[i].push_back(t.ratio[i]);
        }
    }
    return m;
}

// A point may not buy its mean with a loss at one size: at every size its
// paired ratio to the current point stays at or above `floor`.
bool no_size_loses(const std::vector<double>& ratio, double floor) {
    for (double r : ratio)
        if (r < floor) return false;
    return true;
}

// Rounds that fit `seconds` for `count` candidates, given one round of one
// candidate over all sizes costs `round_seconds`; between 3 and 11.
int rounds_for(double seconds, size_t count, double round_seconds) {
    const double fit = seconds / (double(count) * round_seconds + 1e-9);
    return int(std::clamp(std::floor(fit), 3.0, 11.0));
}

// One coordinate stage: measures `candidates` (the current point first) and
// moves to the best if it gains more than `min_gain`.
void stage(KernelSearch& s, std::vector<Problem>& problems, std::vector<BlockingParams> candidates,
           double seconds, double round_seconds, double min_gain = kMinGain) {
    candidates = unique(candidates);
    const int rounds = rounds_for(seconds, candidates.size(), round_seconds);
    const Measured m = measure(s, problems, candidates, rounds);
    size_t best = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
        s.trials.push_back({candidates[i], geomean(m.gflops[i]), m.ratio[i]});
        if (geomean(m.ratio[i]) > geomean(m.ratio[best]) && no_size_loses(m.ratio[i], kMaxLossAtOneSize)) best = i;
    }
    if (best != 0 && geomean(m.ratio[best]) > min_gain) s.chosen = candidates[best];
}

std::vector<Problem> make_problems(const KernelSearch& s) {
    std::vector<Problem> problems;
    for (int64_t n : s.sizes) problems.emplace_back(s.input, n);
    return problems;
}

// The first square size n (in order) at which a path on 2 threads runs at
// least 1.2x the same path on 1 thread (the median of per-round ratios; each
// plan as `plan_for` makes it for the problem and thread count), 20% being
// above the noise of a shared second core: a thread per n^3 flops from there
// (each of the two gets half of 2n^3). 0 when no size pays before time runs
// out. Each size measured is a line of `out`, labelled `what`. The matrices
// off a cache line as malloc places them (Placement), as in the small path's
// crossover, which takes these thresholds.
// A size that falls short is measured once more, longer, and pays if either
// measurement says so: the second core is shared with other work here, which
// only ever slows the team down, and in stretches (one run on the Intel VM
// read 2 threads at 128^3-192^3 at 123-191 GFLOP/s where other runs read
// 185-242, and put the threshold at 256^3 against 160^3 in the others).
using PlanFor = std::function<ridge::GemmPlan(Problem&, int threads)>;
double flops_per_thread_where_two_pay(const PlanFor& plan_for, std::initializer_list<int64_t> sizes, const char* what,
                                      double seconds, Crossover* out) {
    constexpr double kTwoPay = 1.2;
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t n : sizes) {
        Problem p(ridge::Dtype::f32, n, n, n, Placement::off_line);
        const Plans plans = {plan_for(p, 1), plan_for(p, 2)};
        for (int rounds : {7, 15}) {
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) return 0;
            const Timed t = time_plans(p, plans, rounds);
            char line[160];
            std::snprintf(line, sizeof line, "n=%lld: %s1 thread %.1f GFLOP/s, 2 threads %.1f (paired %.2fx, %d rounds)",
                          (long long)n, what, t.gflops[0], t.gflops[1], t.ratio[1], rounds);
            out->lines.push_back(line);
            if (t.ratio[1] >= kTwoPay) return double(n) * double(n) * double(n);
        }
    }
    return 0;
}

}  // namespace

Budget::Budget(double seconds) : total_(seconds), start_(std::chrono::steady_clock::now()) {}
double Budget::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}
double Budget::left() const { return std::max(0.0, total_ - elapsed()); }

namespace {

// One round of one candidate (the model's point) over all sizes, at least one 2 ms sample per size.
double seconds_per_round(const KernelSearch& s, std::vector<Problem>& problems) {
    double seconds = 0;
    for (Problem& p : problems) seconds += std::max(2e-3, seconds_per_call(p, blocked_plan(*s.kernel, s.model)));
    return seconds;
}

// The final word: the model's point against the chosen one, more rounds (at
// least `min_rounds`, within `seconds`). A moved point must win by `min_gain` and lose
// nowhere by more than 1%, else the model's point stands; and where it wins,
// it must win a second comparison of the same length, as a blocked-path rule
// must be measured twice (rule_verdict.h). On the Intel VM of family 6 model
// 207 two tuner runs (one right after a build, one in a slow spell: the model
// at 80-105 GFLOP/s where a quiet host runs 160) moved fp32 to KC 768, MC 608
// (19.5% and 4.0% ahead of the model in their final comparisons); on a quiet
// host that point ran 0.951 / 0.956 at 1024^3 and 0.992 / 0.996 at 2048^3 of
// the model's (two profiles, `PROFILE_A=... PROFILE_B=... RIDGE_NUM_THREADS=1
// ridge-ab A.so B.so n n n 21`).
void final_comparison(KernelSearch& s, std::vector<Problem>& problems, double seconds, double round_seconds,
                      double min_gain = kMinGain, int min_rounds = kFinalMinRounds) {
    s.searched = true;
    if (same(s.model, s.chosen)) {
        const Measured m = measure(s, problems, {s.model}, std::max(min_rounds, rounds_for(seconds, 1, round_seconds)));
        s.note = "the model's point won the search";
        s.model_gflops = s.chosen_gflops = m.gflops[0];
        return;
    }
    const int rounds = std::max(min_rounds, rounds_for(seconds / 2, 2, round_seconds));
    std::vector<double> gains;
    for (int comparison = 0; comparison < 2; ++comparison) {
        const Measured m = measure(s, problems, {s.model, s.chosen}, rounds);
        if (comparison == 0) {
            s.model_gflops = m.gflops[0];
            s.chosen_gflops = m.gflops[1];
        }
        const double gain = geomean(m.ratio[1]);
        gains.push_back(gain);
        if (gain <= min_gain || !no_size_loses(m.ratio[1], kMaxLossFinal)) {
            s.note = comparison == 0 ? "the searched point did not beat the model's clearly at every size in the "
                                       "final comparison: model kept"
                                     : "the searched point beat the model's, but not again in a second final "
                                       "comparison: model kept";
            if (comparison == 1) {
                char line[80];
                std::snprintf(line, sizeof line, " (%.1f%% then %.1f%%)", 100.0 * (gains[0] - 1.0),
                              100.0 * (gain - 1.0));
                s.note += line;
            }
            s.chosen = s.model;
            s.chosen_gflops = s.model_gflops;
            return;
        }
    }
    char line[128];
    std::snprintf(line, sizeof line, "searched point %.1f%% faster than the model's (geometric mean), %.1f%% again",
                  100.0 * (gains[0] - 1.0), 100.0 * (gains[1] - 1.0));
    s.note = line;
}

}  // namespace

void search_blocking(KernelSearch& s, double seconds) {
    const GemmKernel& k = *s.kernel;
    std::vector<Problem> problems = make_problems(s);
    s.chosen = s.model;
    const double round_seconds = seconds_per_round(s, problems);
    // Down to a quarter: a kernel's KC floor (AMX's) may sit above what this machine's L1 prefers.
    // Up to 2.5x: where one block holds all of A's rows (the one-thread order at 1024^3-2048^3),
    // KC 416 ran 1.005-1.007x KC 320 on the Zen 4 (same build, two profiles, three processes;
    // `PROFILE_B=... RIDGE_NUM_THREADS=1 ridge-ab LIB LIB n n n 11`), whose model KC of 160 had
    // put it past 2x; the candidate here is then 400. (Measured again after B's 12-row packing
    // loop and the one-step rule for k up to 2 KC: KC 384 / 416 by profile 1.000-1.004 / 0.977-0.982
    // at 2048^3; the search times the candidate on each machine either way, and kept 320 here
    // until it could also try the L1 bound below.)
    // And the deepest KC whose micro-panel of B still fits three quarters of L1
    // (deepest_kc_in_l1; 3.2x the model's here), MC scaled as for the others:
    // no multiple above reached it, and on the Zen 4 KC 512 (MC 608) ran
    // 1.008-1.014 at 1024^3 (1024 and 2048 take two and four whole steps, 320
    // leaves a step of 64 / 128), 1.006-1.009 at 2048^3, 1.011 at 4096^3, 1.019
    // at 512 x 2048 x 2048, 2 threads 1.014 / 1.009, TN / NT / TT at 1024^3
    // 1.015 / 1.002 / 1.007 against KC 320 (two profiles, `PROFILE_A=...
    // PROFILE_B=... RIDGE_NUM_THREADS=1 ridge-ab LIB LIB M N K 9-21`), where
    // 576 and 640 (past the bound) ran 0.980 at 2048^3. Of eight searches with it,
    // one kept 320 (a main job's, at a load average of 2.3 just after its build);
    // seven chose KC 512, then MC 384 five times (the eighteenth and nineteenth
    // main jobs' among them; the searched profile against the one before, KC 320 MC 608: 1024^3
    // 1.012, 2048^3 1.009, 384 x 2048 x 2048 1.092, 300 x 3000 x 300 1.044, 200 x
    // 2000 x 2000 1.021, none of 13 shapes below 0.994; 2 threads 1024^3 1.013,
    // 384 x 2048 x 2048 1.086), MC 288 once (the seventeenth main job's: oneDNN
    // 1.01 / 0.998x at 1024^3 / 2048^3) and MC 192 once, on 1% at 512^3 in the MC
    // stage's noise: that puts 193-608 rows in the one-block order (256 x 4096 x
    // 4096 1.088, 200 x 2000 x 2000 1.057, but 256 x 256 x 4096 0.950).
    const double to_l1_bound = double(ridge::deepest_kc_in_l1(k)) / double(s.chosen.KC);
    stage(s, problems,
          {s.chosen, scale_kc(k, s.chosen, 0.25), scale_kc(k, s.chosen, 0.5), scale_kc(k, s.chosen, 0.75),
           scale_kc(k, s.chosen, 1.25), scale_kc(k, s.chosen, 1.5), scale_kc(k, s.chosen, 2.0),
           scale_kc(k, s.chosen, 2.5), scale_kc(k, s.chosen, to_l1_bound), scale_kc_alone(k, s.chosen, 0.5),
           scale_kc_alone(k, s.chosen, 0.25)},
          kShareKC * seconds, round_seconds);
    stage(s, problems,
          {s.chosen, scale_mc(k, s.chosen, 0.5), scale_mc(k, s.chosen, 0.75), scale_mc(k, s.chosen, 1.5),
           scale_mc(k, s.chosen, 2.0)},
          kShareMC * seconds, round_seconds);
    stage(s, problems, {s.chosen, scale_nc(k, s.chosen, 0.5), scale_nc(k, s.chosen, 2.0)}, kShareNC * seconds,
          round_seconds);
    final_comparison(s, problems, kShareFinal * seconds, round_seconds);
}

void search_blocking_mc(KernelSearch& s, double seconds) {
    const GemmKernel& k = *s.kernel;
    std::vector<Problem> problems = make_problems(s);
    s.chosen = s.model;
    const double round_seconds = seconds_per_round(s, problems);
    const double final_share = 0.5;
    stage(s, problems, {s.chosen, scale_mc(k, s.chosen, 0.75)}, (1 - final_share) * seconds, round_seconds,
          kMinGainSmallerBlock);
    final_comparison(s, problems, final_share * seconds, round_seconds, kMinGainSmallerBlock,
                     kFinalMinRoundsOnlyWhenAsked);
}

GridResult exhaustive_grid(const KernelSearch& s) {
    const GemmKernel& k = *s.kernel;
    const auto t0 = std::chrono::steady_clock::now();
    const double factors[] = {0.25, 0.375, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0};
    std::vector<BlockingParams> grid;
    for (double fk : factors)
        for (double fm : factors)
            for (double fn : {0.5, 1.0, 2.0}) {
                BlockingParams b = s.model;
                b.KC = round_to(double(s.model.KC) * fk, kc_multiple(k));
                b.MC = round_to(double(s.model.MC) * fm, k.MR);
                b.NC = round_to(double(s.model.NC) * fn, k.NR);
                grid.push_back(b);
            }
    grid = unique(grid);
    std::vector<Problem> problems = make_problems(s);
    GridResult out;
    out.sizes = s.sizes;
    out.points = int(grid.size());
    // Pass 1: every point once per size (the order interleaves them).
    const auto first = measure(s, problems, grid, 1).gflops;
    // Pass 2: the best few per size and overall, against chosen and model, 7 rounds.
    std::vector<size_t> order(grid.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<BlockingParams> finalists = {s.chosen, s.model};
    auto take_top = [&](auto score, int count) {
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score(a) > score(b); });
        for (int i = 0; i < count && i < int(order.size()); ++i) finalists.push_back(grid[order[size_t(i)]]);
    };
    take_top([&](size_t i) { return geomean(first[i]); }, 6);
    for (size_t z = 0; z < s.sizes.size(); ++z) take_top([&](size_t i) { return first[i][z]; }, 3);
    finalists = unique(finalists);
    const auto final_results = measure(s, problems, finalists, 7).gflops;
    // Pass 3, per size: the best finalist against the chosen and the model's
    // point, head to head. The best of ~20 noisy medians is biased upward (the
    // winner's curse); measured again beside the other two, it is not.
    for (size_t z = 0; z < s.sizes.size(); ++z) {
        size_t best = 0;
        for (size_t i = 0; i < finalists.size(); ++i)
            if (final_results[i][z] > final_results[best][z]) best = i;
        // Ratios per round (paired), 21 rounds; a point equal to the best, or
        // the model's equal to the chosen, is the same plan and not timed twice.
        Plans head_to_head = {blocked_plan(k, finalists[best])};
        auto slot = [&](const BlockingParams& b) -> size_t {
            for (size_t i = 0; i < head_to_head.size(); ++i)
                if (same(head_to_head[i].blocking, b)) return i;
            head_to_head.push_back(blocked_plan(k, b));
            return head_to_head.size() - 1;
        };
        const size_t chosen_at = slot(s.chosen), model_at = slot(s.model);
        const std::vector<double> ratio = time_plans(problems[z], head_to_head, 21).ratio;
        const double best_gflops = interleaved_gflops(problems[z], {head_to_head[0]}, 5)[0];
        out.best_gflops.push_back(best_gflops);
        out.best_blocking.push_back(finalists[best]);
        out.chosen_gflops.push_back(best_gflops * ratio[chosen_at]);
        out.model_gflops.push_back(best_gflops * ratio[model_at]);
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

// The host's speed while a crossover is measured. This VM's host slows a core
// for minutes at a time (to ~60% of its FMA rate), and not every path alike:
// one main job's tuning run, its FMA-bound rates at ~65% of their usual, put
// the small path at 0.94-0.95x the blocked one at 256^3 (1.04-1.07x on a quiet
// host) and cut it at 192^3, which the library then used at every size. So
// each measurement of a crossover is bracketed by two runs of two probes, and
// counts only when the slower run of each is at least kMinHostSpeed of the
// fastest that probe ran in that search: the FMA loop of the kernel's ISA (a
// slowed core), and a read of a buffer beyond L2 (a busy memory side, which
// the FMA loop does not see: in one tuner run 384^3 fell to 0.62x its usual
// rate on both paths, the small path more, with the FMA probe at 95-97%).
constexpr double kMinHostSpeed = 0.85;

// Each probe's rate over the fastest it ran in the search (1 at the fastest).
struct HostSpeedNow {
    double fma = 1, reads = 1;
    double slower() const { return std::min(fma, reads); }
    HostSpeedNow slower_of_each(const HostSpeedNow& other) const {
        return {std::min(fma, other.fma), std::min(reads, other.reads)};
    }
};

class HostSpeed {
public:
    explicit HostSpeed(const GemmKernel& kernel)
        : isa_(kernel.isa == ridge::Isa::avx2 ? "avx2" : "avx512"), buffer_(kReadProbeBytes / sizeof(float), 1.0f) {}
    HostSpeedNow now() {
        const double gflops = ridge_bench::measured_peak_gflops(isa_);
        const double gbps = read_gbps();
        fastest_gflops_ = std::max(fastest_gflops_, gflops);
        fastest_gbps_ = std::max(fastest_gbps_, gbps);
        return {fastest_gflops_ > 0 ? gflops / fastest_gflops_ : 1.0, fastest_gbps_ > 0 ? gbps / fastest_gbps_ : 1.0};
    }

private:
    // 16 MiB: beyond the L2 of any current x86 core, in the L3 of a server part
    // (its DRAM on a small desktop L3: the memory side either way). Three
    // samples of four passes, the median: ~7 ms at this VM's 27 GB/s.
    static constexpr int64_t kReadProbeBytes = int64_t(16) << 20;
    double read_gbps() {
        double rates[3];
        for (double& rate : rates) {
            const auto t0 = std::chrono::steady_clock::now();
            double bytes = 0;
            for (int pass = 0; pass < 4; ++pass) bytes += ridge_bench::read_bytes(buffer_.data(), int64_t(buffer_.size()));
            rate = bytes / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e-9;
        }
        std::sort(rates, rates + 3);
        return rates[1];
    }

    std::string isa_;
    std::vector<float> buffer_;
    double fastest_gflops_ = 0, fastest_gbps_ = 0;
};

// Appends to a crossover's log line how fast the host ran, and whether that counts.
void note_host_speed(std::string& line, const HostSpeedNow& speed) {
    char note[128];
    std::snprintf(note, sizeof note, "; host at %.0f%% (FMA) and %.0f%% (reads) of its fastest%s", 100 * speed.fma,
                  100 * speed.reads, speed.slower() < kMinHostSpeed ? ": not counted" : "");
    line += note;
}

// The sizes the small path's crossovers are timed at, n^3, to the library's
// built-in limit (640^3). Steps of 16 up to 128: with A 16 bytes past a line
// the one-thread limit on the Intel VM lies between 80^3 and 96^3, and from a
// grid of 64 and 96 it came out at 64^3, where the small path ran 80^3 at
// 1.12x the blocked path (`OFFSET=4 RIDGE_NUM_THREADS=1 ridge-ab`).
constexpr int64_t kSmallCrossoverSizes[] = {64, 80, 96, 112, 128, 160, 192, 256, 320, 384, 448, 512, 576, 640};

// Calls per timed sample in the small-path crossover (see there): at 512^3 a
// call takes ~0.8 ms on 2 threads, so a size costs about 4 plans x 7 rounds
// x 8 calls x ~1.2 ms = 0.3 s.
constexpr int kCrossoverCallsPerSample = 8;

void search_small_crossover(const GemmKernel& kernel, const BlockingParams& blocking, int threads,
                            double min_flops_per_thread, double small_min_flops_per_thread, double max_a_floats,
                            double seconds, Crossover* out) {
    if (kernel.small_f32 == nullptr) return;
    const auto t0 = std::chrono::steady_clock::now();
    auto team_for = [threads](double flops, double per_thread) {
        return int(std::min<double>(threads, std::max(1.0, flops / std::max(per_thread, 1.0))));
    };
    HostSpeed host(kernel);
    host.now();
    // Two limits: where the small path on a team keeps up with what the
    // blocked path would run (small_max_volume, what a call the small path
    // would run on a team goes by: paths.cpp, takes_small_path) and where it
    // keeps up alone (small_max_volume_alone, for a call it would run on one
    // thread, A off cache lines: small_path_limit_alone). The two paths give C
    // the same bits (the small path runs the blocked path's KC steps), so the
    // limits may differ. Each search ends after two sizes in a row fall short
    // (see below); the sizes go on while either is open. Where the small path
    // would run on one thread at a size (or the machine has one core), the
    // team's limit goes by the one-thread comparison, as before teams form.
    // Keeping up: the small path at least as fast as the blocked one in the
    // paired median, alone and on a team alike. With 2% to spare on one
    // thread, a tuner run on the Intel VM put 256^3 at 0.947 / 0.977 and 320^3
    // at 0.974 / 0.984 and gave both (and the headline 256^3) to the small
    // path, which measured 3-5% slower there; on a team, with the team's plans
    // timed apart (below), two runs ended at 192^3 and 384^3 on team ratios of
    // 0.94-1.03 at 192^3-320^3, where ridge-ab put the small path's team at
    // 0.92-0.96x (A 16 bytes past a line). A size that merely ties costs
    // nothing either way.
    constexpr double kSmallKeepsUp = 1.0;
    int team_misses = 0, alone_misses = 0;  // sizes in a row that fell short
    bool team_fell_short = false, alone_fell_short = false;  // at any size so far (see cut_short.h)
    constexpr int kMissesThatEndASearch = 2;
    SlowedSizes slowed;  // (cut_short.h)
    auto team_open = [&team_misses] { return team_misses < kMissesThatEndASearch; };
    auto alone_open = [&alone_misses] { return alone_misses < kMissesThatEndASearch; };
    // Cut short (see cut_short.h): the runs measured so far go into the profile
    // where they go beyond the library's own limit or where a size fell short
    // within it; a team's run that already ended stays as measured.
    auto cut_short = [out, &team_open, &alone_open, &team_fell_short, &alone_fell_short](const std::string& why) {
        const double fallback = ridge::builtin_crossovers().small_max_volume;
        if (alone_open()) {
            out->small_max_volume_alone =
                figure_when_cut_short(out->small_max_volume_alone, fallback, alone_fell_short);
            out->small_alone_measured = out->small_max_volume_alone > 0;
        }
        if (team_open()) {
            out->small_max_volume = figure_when_cut_short(out->small_max_volume, fallback, team_fell_short);
            if (out->small_max_volume <= 0) {
                out->small_not_measured = why;
                return;
            }
        }
        out->lines.push_back(why + ": the runs measured so far are kept where they go beyond the library's own "
                                   "limit or fell short within it");
    };
    for (int64_t n : kSmallCrossoverSizes) {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds)
            return cut_short("out of time at n = " + std::to_string(n));
        const double padded_a = double((n + kernel.MR - 1) / kernel.MR * kernel.MR) * double(n);
        // (the library takes a larger op(A) only where it blocks its rows)
        if (padded_a > max_a_floats && ridge::small_path_a_block_floats(kernel, n) == 0) break;
        // Off a line, as malloc places a large block (Placement): where it
        // placed them, the same search put the one-thread limit at 192^3 in
        // one ridge-tune run and 448^3 in the next on the Intel VM.
        Problem p(ridge::Dtype::f32, n, n, n, Placement::off_line);
        // Each path with as many threads as the library would give it at this
        // size, and both on one thread too: a call goes by the team's limit
        // where the small path would run it on a team, by the one-thread limit
        // where it would run it alone.
        const int small_team = team_for(p.flops(), small_min_flops_per_thread);
        const int blocked_team = team_for(p.flops(), min_flops_per_thread);
        const bool threaded = team_open() && small_team > 1;
        // Both paths as the library would run this call (dispatched_blocked_plan):
        // the small path with the blocked path's KC steps, as dispatch gives it.
        ridge::GemmPlan small = dispatched_blocked_plan(kernel, blocking, 1, p);
        small.small_path = true;
        small.small_a_block_floats = ridge::small_path_a_block_floats(kernel, n);
        const Plans alone = {small, dispatched_blocked_plan(kernel, blocking, 1, p)};
        small.threads = small_team;
        const Plans team = {small, dispatched_blocked_plan(kernel, blocking, blocked_team, p)};
        // The run of sizes from the bottom where reading in place keeps up (as
        // above), judged on paired ratios (each path's rate over the other's in
        // the same round) and on samples of several calls each: a sample of one
        // call is mostly the first call after another plan ran, with the
        // operands where that plan left them (at 512^3, one thread, two tuner
        // runs in a row with one-call samples measured the small path at 0.98x
        // and 1.03x the blocked one; ridge-bench, each path alone for 50 ms per
        // round, 1.05-1.07x).
        // A size that falls short is measured once more, longer: on this
        // project's shared VM one 7-round measurement put 448^3 at 0.96x in one
        // tuner run and 1.13x in another. And a search ends only after two
        // sizes in a row fall short; a size that keeps up after one that fell
        // short takes the limit over both: the blocked path's team measured
        // 246-317 GFLOP/s at 128^3 in tuner runs an hour apart, and one run
        // put the small path's team at 0.965x the blocked one's at 160^3
        // (ending the search there, at 128^3), where three runs of the same
        // timing in a probe right after measured 1.12-1.17x (2 threads).
        // A measurement on a slowed host (HostSpeed) is not counted; a size with no
        // counted measurement is skipped, and two such sizes in a row cut the
        // search short (SlowedSizes, cut_short.h).
        // The team's plans are timed apart from the one-thread ones, as a
        // caller that calls on a team call after call runs them: timed in one
        // rotation with the one-thread plans, whose samples left the team's
        // other thread waiting for 2 ms or more (libgomp then puts it to sleep),
        // the blocked path's team ran 223 GFLOP/s at 256^3 and 209 at 192^3
        // (2 threads, the Intel VM), where a run with OMP_WAIT_POLICY=active
        // measured 299-306 at 192^3 and ridge-ab (`RIDGE_NUM_THREADS=2`) 292-315:
        // the team's limit came out at 384^3, where ridge-ab put the small
        // path's team at 0.92-0.96x the blocked path's from 192^3 (A 16 bytes
        // past a line; 1.02-1.04x at 160^3-192^3 with A on lines, 0.96-1.00 at
        // 256^3-320^3).
        bool alone_keeps_up = false, team_keeps_up = false, counted = false;
        for (int rounds : {7, 15}) {
            const HostSpeedNow before = host.now();
            const Timed t = time_plans(p, alone, rounds, kCrossoverCallsPerSample);
            const Timed on_team = threaded ? time_plans(p, team, rounds, kCrossoverCallsPerSample) : t;
            const HostSpeedNow speed = before.slower_of_each(host.now());
            const double one = t.paired_ratio(0, 1), team_ratio = on_team.paired_ratio(0, 1);
            char line[240];
            int len = std::snprintf(line, sizeof line,
                                    "n=%lld: small path %.1f GFLOP/s, blocked %.1f (1 thread, paired %.3fx)",
                                    (long long)n, t.gflops[0], t.gflops[1], one);
            if (threaded)
                std::snprintf(line + len, sizeof line - len, "; %.1f (%d threads), %.1f (%d) (paired %.3fx)",
                              on_team.gflops[0], small_team, on_team.gflops[1], blocked_team, team_ratio);
            std::string logged = line;
            note_host_speed(logged, speed);
            out->lines.push_back(logged);
            if (speed.slower() < kMinHostSpeed) continue;
            counted = true;
            // A measurement that keeps up settles its limit's question; the
            // second one is for whichever fell short the first time.
            alone_keeps_up = alone_keeps_up || one >= kSmallKeepsUp;
            team_keeps_up = team_keeps_up || (threaded ? team_ratio >= kSmallKeepsUp : alone_keeps_up);
            if ((alone_keeps_up || !alone_open()) && team_keeps_up) break;
        }
        if (slowed.cut_short_after(counted)) return cut_short("the host was slowed at n = " + std::to_string(n));
        if (!counted) {
            out->lines.push_back("n=" + std::to_string(n) + ": not counted (the host was slowed): skipped");
            continue;
        }
        const double volume = double(n) * double(n) * double(n);
        if (team_open()) {
            if (team_keeps_up) out->small_max_volume = volume;
            team_misses = team_keeps_up ? 0 : team_misses + 1;
            team_fell_short = team_fell_short || !team_keeps_up;
        }
        if (alone_open()) {
            if (alone_keeps_up) out->small_max_volume_alone = volume;
            alone_misses = alone_keeps_up ? 0 : alone_misses + 1;
            alone_fell_short = alone_fell_short || !alone_keeps_up;
        }
        if (!alone_open() && !team_open()) break;
    }
    out->small_alone_measured = true;  // to its end (a limit of 0 too: one thread never kept up)
}

void search_small_crossover_lined_a(const GemmKernel& kernel, const BlockingParams& blocking, double max_a_floats,
                                    double seconds, Crossover* out) {
    if (kernel.small_f32 == nullptr || !out->small_alone_measured) return;
    const auto t0 = std::chrono::steady_clock::now();
    HostSpeed host(kernel);
    host.now();
    // The search above ran on matrices placed as malloc places large blocks, A
    // 16 bytes past a line where the small path's loads of it split (paths.cpp:
    // small_path_reads_a_on_lines). With A on lines the small path keeps up
    // further; this goes on from the sizes that limit left, one thread, on the
    // same rules: paired against the blocked path, a size that falls short
    // measured once more and longer, the search ended by two in a row. Where
    // nothing beyond it keeps up, the limit is the same as without lines.
    out->small_max_volume_alone_lined_a = out->small_max_volume_alone;
    int misses = 0;
    SlowedSizes slowed;  // (cut_short.h)
    constexpr int kMissesThatEndASearch = 2;
    for (int64_t n : kSmallCrossoverSizes) {
        const double volume = double(n) * double(n) * double(n);
        if (volume <= out->small_max_volume_alone) continue;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) {
            out->lines.push_back("A on lines: out of time at n = " + std::to_string(n) + ", the limit so far kept");
            break;
        }
        // Past the small path's bound for A (n x n floats), the library does not
        // apply this limit (paths.cpp: a_within_small_path_bound): A's rows in blocks lost there.
        if (double(n) * double(n) > max_a_floats) break;
        Problem p(ridge::Dtype::f32, n, n, n, Placement::on_line);
        ridge::GemmPlan small = dispatched_blocked_plan(kernel, blocking, 1, p);
        small.small_path = true;
        small.small_a_block_floats = ridge::small_path_a_block_floats(kernel, n);
        const Plans plans = {small, dispatched_blocked_plan(kernel, blocking, 1, p)};
        bool keeps_up = false, counted = false;
        for (int rounds : {7, 15}) {
            const HostSpeedNow before = host.now();
            const Timed t = time_plans(p, plans, rounds, kCrossoverCallsPerSample);
            const HostSpeedNow speed = before.slower_of_each(host.now());
            char line[160];
            std::snprintf(line, sizeof line,
                          "n=%lld, A on lines: small path %.1f GFLOP/s, blocked %.1f (1 thread, paired %.3fx)",
                          (long long)n, t.gflops[0], t.gflops[1], t.paired_ratio(0, 1));
            std::string logged = line;
            note_host_speed(logged, speed);
            out->lines.push_back(logged);
            if (speed.slower() < kMinHostSpeed) continue;
            counted = true;
            keeps_up = t.paired_ratio(0, 1) >= 1.0;  // as kSmallKeepsUp above
            if (keeps_up) break;
        }
        if (slowed.cut_short_after(counted)) {
            out->lines.push_back("A on lines: the host was slowed at n = " + std::to_string(n) +
                                 ", the limit so far kept");
            break;
        }
        if (!counted) {
            out->lines.push_back("n=" + std::to_string(n) + ", A on lines: not counted (the host was slowed): skipped");
            continue;
        }
        if (keeps_up) out->small_max_volume_alone_lined_a = volume;
        misses = keeps_up ? 0 : misses + 1;
        if (misses == kMissesThatEndASearch) break;
    }
}

void search_small_thread_threshold(const GemmKernel& kernel, const BlockingParams& blocking, double seconds,
                                   Crossover* out) {
    if (omp_get_max_threads() < 2 || kernel.small_f32 == nullptr) return;
    const PlanFor small = [&](Problem& p, int threads) {
        ridge::GemmPlan plan = dispatched_blocked_plan(kernel, blocking, threads, p);
        plan.small_path = true;
        plan.small_a_block_floats = ridge::small_path_a_block_floats(kernel, p.args().k);
        return plan;
    };
    out->small_min_flops_per_thread =
        flops_per_thread_where_two_pay(small, {48, 64, 80, 96, 112, 128, 160, 192}, "small path: ", seconds, out);
}

void search_skinny_crossover(const GemmKernel& kernel, const BlockingParams& blocking, ridge::Dtype input,
                             double seconds, Crossover* out) {
    if (kernel.skinny == nullptr) return;
    // The decode benchmark's weight matrix (A from memory), at two column
    // strides: 4096 rows (columns 16 KiB apart, where the sweep reads A in
    // short chunks: gemm_skinny.cpp) and 4000 (off a 4 KiB multiple, long
    // chunks). The sweep's speed differs between the two: in a tuner run on the
    // Intel VM 4096 x 96 x 4096 kept up (148.4 against 142.7 GFLOP/s) where the
    // blocked path ran 4000 x 96 x 4000 1.069x the sweep (`PROFILE_A=P
    // PROFILE_B=Q RIDGE_NUM_THREADS=1 ridge-ab LIB LIB2 4000 96 4000 9`, two
    // copies of one build, profiles at 96 and 24 columns). One limit serves
    // both, so a width is kept where the sweep keeps up at each.
    constexpr int64_t kDepth = 4096;
    constexpr int64_t kRowsAt[] = {4096, 4000};
    ridge::GemmPlan skinny = blocked_plan(kernel, blocking, 1);
    skinny.skinny_path = true;
    // The sweep's chunk the dispatcher would pick for this A (gemm_skinny.cpp).
    skinny.a_from_memory = ridge::exceeds_last_level_cache(
        ridge::runtime_config(), double(ridge::dtype_bytes(input)) * double(kRowsAt[1]) * double(kDepth));
    const ridge::GemmPlan blocked = blocked_plan(kernel, blocking, 1);
    const auto t0 = std::chrono::steady_clock::now();
    HostSpeed host(kernel);
    host.now();
    int64_t widest = 24;  // the skinny path's smallest limit: below 32 columns nothing else competes
    // Cut short (see cut_short.h): the widths measured so far count only beyond the library's own limit.
    auto cut_short = [&](const std::string& why) {
        const int64_t kept = int64_t(
            figure_when_cut_short(double(widest), double(ridge::builtin_crossovers().skinny_max_columns[int(input)]),
                                  false));  // (a width that falls short ends the search before any cut)
        out->skinny_max_columns[int(input)] = kept;
        out->lines.push_back(std::string(ridge::dtype_name(input)) + " skinny crossover " + why +
                             (kept > 0 ? ": the widths measured so far are kept, beyond the library's own limit"
                                       : ": not measured, the library's own limit applies"));
    };
    SlowedSizes slowed;  // (cut_short.h)
    for (int64_t n : {32, 48, 64, 96, 128}) {
        if (n > ridge::kSkinnyMaxN) break;
        bool keeps_up = true, counted = true;
        for (int64_t rows : kRowsAt) {
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds)
                return cut_short("cut short: out of time at n = " + std::to_string(n));
            Problem p(input, rows, n, kDepth);
            const HostSpeedNow before = host.now();
            const std::vector<double> g = interleaved_gflops(p, {skinny, blocked}, 5);
            const HostSpeedNow speed = before.slower_of_each(host.now());
            char line[128];
            std::snprintf(line, sizeof line, "%s %lldx%lldx%lld: skinny path %.1f GFLOP/s, blocked %.1f (1 thread)",
                          ridge::dtype_name(input), (long long)rows, (long long)n, (long long)kDepth, g[0], g[1]);
            std::string logged = line;
            note_host_speed(logged, speed);
            out->lines.push_back(logged);
            if (speed.slower() < kMinHostSpeed) {
                counted = false;
                break;
            }
            // Keeping up: at least as fast as packing A. With 2% allowed for
            // noise, a run on the Intel VM kept 128 columns at 136.5 against
            // 137.3 GFLOP/s, where the blocked path ran 1.038x (`PROFILE_A=P
            // PROFILE_B=Q RIDGE_NUM_THREADS=1 ridge-ab LIB LIB2 4096 128 4096 9`)
            // and the main job's row read 0.93x oneDNN; a width that merely
            // ties costs nothing either way.
            if (g[0] < g[1]) {
                keeps_up = false;
                break;
            }
        }
        if (slowed.cut_short_after(counted))
            return cut_short("cut short: the host was slowed at n = " + std::to_string(n));
        if (!counted) {
            out->lines.push_back(std::string(ridge::dtype_name(input)) + " n=" + std::to_string(n) +
                                 ": not counted (the host was slowed): skipped");
            continue;
        }
        if (!keeps_up) break;  // the run of widths from the bottom where the sweep keeps up
        widest = n;
    }
    out->skinny_max_columns[int(input)] = widest;
}

void search_thread_threshold(const GemmKernel& kernel, const BlockingParams& blocking, double seconds,
                             Crossover* out) {
    if (omp_get_max_threads() < 2) return;
    // The blocked path as the library would run each size (dispatched_blocked_plan).
    const PlanFor blocked = [&](Problem& p, int threads) {
        return dispatched_blocked_plan(kernel, blocking, threads, p);
    };
    out->min_flops_per_thread =
        flops_per_thread_where_two_pay(blocked, {96, 128, 160, 192, 256, 320}, "", seconds, out);
}

}  // namespace ridge_tune
