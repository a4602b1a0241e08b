#include "timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "dispatch/dispatch.h"
#include "dispatch/paths.h"
#include "median.h"
#include "rule_verdict.h"

namespace ridge_tune {
namespace {

using Clock = std::chrono::steady_clock;

// Each timed sample lasts at least this long: steady_clock and the call's own
// overhead are then below 0.1% of it.
constexpr double kMinSampleSeconds = 2e-3;

// Random bf16/fp16/fp32 bit patterns of values in [-1, 1): fp32 drawn, then
// narrowed by keeping the top half (bf16) or converted to binary16 (fp16).
uint16_t to_bf16(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return uint16_t(u >> 16);
}
uint16_t to_f16(float x) {
    // |x| < 1 and no subnormals matter here: a plain rebias of the exponent.
    uint32_t u;
    std::memcpy(&u, &x, 4);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const int exp = int((u >> 23) & 0xff) - 127 + 15;
    if (exp <= 0) return uint16_t(sign);
    return uint16_t(sign | (uint32_t(exp) << 10) | ((u >> 13) & 0x3ffu));
}

std::vector<uint8_t> random_matrix(ridge::Dtype input, int64_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<uint8_t> out(size_t(count) * size_t(ridge::dtype_bytes(input)));
    for (int64_t i = 0; i < count; ++i) {
        const float x = dist(rng);
        if (input == ridge::Dtype::f32) {
            std::memcpy(out.data() + 4 * i, &x, 4);
        } else {
            const uint16_t h = input == ridge::Dtype::bf16 ? to_bf16(x) : to_f16(x);
            std::memcpy(out.data() + 2 * i, &h, 2);
        }
    }
    return out;
}

double run_for_seconds(Problem& problem, const ridge::GemmPlan& plan, int calls) {
    const ridge::GemmArgs args = problem.args();
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) ridge::gemm(args, plan);
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

Problem::Problem(ridge::Dtype input, int64_t m, int64_t n, int64_t k, Placement placement)
    : input_(input), m_(m), n_(n), k_(k) {
    // A line's worth of elements more where the matrix is moved within its vector.
    const bool moved = placement != Placement::as_allocated;
    const int64_t spare = moved ? int64_t(kPlacementLineBytes) / ridge::dtype_bytes(input) : 0;
    a_ = random_matrix(input, m * k + spare, 1);
    b_ = random_matrix(input, k * n + spare, 2);
    c_.assign(size_t(m * n) + (moved ? kPlacementLineBytes / sizeof(float) : 0), 0.0f);
    a_at_ = bytes_to_placement(reinterpret_cast<uintptr_t>(a_.data()), placement);
    b_at_ = bytes_to_placement(reinterpret_cast<uintptr_t>(b_.data()), placement);
    c_at_ = bytes_to_placement(reinterpret_cast<uintptr_t>(c_.data()), placement);
}

ridge::GemmArgs Problem::args() {
    ridge::GemmArgs g;
    g.input = input_;
    g.m = m_, g.n = n_, g.k = k_;
    g.a = a_.data() + a_at_, g.lda = m_;
    g.b = b_.data() + b_at_, g.ldb = k_;
    g.c = reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(c_.data()) + c_at_), g.ldc = m_;
    g.alpha = 1.0f, g.beta = 0.0f;
    return g;
}

ridge::GemmPlan blocked_plan(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking, int threads) {
    ridge::GemmPlan plan;
    plan.kernel = &kernel;
    plan.blocking = blocking;
    plan.blocking.MR = kernel.MR;
    plan.blocking.NR = kernel.NR;
    plan.threads = threads;
    ridge::set_blocked_path_limits(&plan);  // the loop order the library runs with this blocking
    return plan;
}

ridge::GemmPlan dispatched_blocked_plan(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                                        int threads, Problem& problem) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::GemmArgs g = problem.args();
    ridge::GemmChoice choice;
    choice.kernel = &kernel;
    choice.blocking = blocking;
    choice.blocking.MR = kernel.MR;
    choice.blocking.NR = kernel.NR;
    ridge::GemmPlan plan = ridge::blocked_plan_for_call(cfg, choice, g, threads);
    plan.stream_c = ridge::use_streaming_c(cfg, plan, g);  // as dispatch_gemm sets it last
    return plan;
}

namespace {
const char* placement_words(Placement placement) {
    switch (placement) {
        case Placement::off_line: return ", matrices 16 bytes past a line";
        case Placement::on_line: return ", matrices on a line";
        case Placement::as_allocated: break;
    }
    return "";
}
}  // namespace

bool rule_pays(const ridge::GemmPlan& without, const ridge::GemmPlan& with, const std::vector<RuleShape>& shapes,
               int rounds, const char* with_name, const char* without_name, std::vector<std::string>* lines) {
    std::vector<double> mean_gains;
    do {
        double log_gain = 0;
        for (const RuleShape& shape : shapes) {
            Problem problem(ridge::Dtype::f32, shape.m, shape.n, shape.k, shape.placement);
            const double gain = time_plans(problem, {without, with}, rounds).paired_ratio(1, 0);
            log_gain += std::log(gain);
            char line[240];
            std::snprintf(line, sizeof line, "blocked path %lldx%lldx%lld (1 thread%s): %s %.3fx of %s",
                          (long long)shape.m, (long long)shape.n, (long long)shape.k,
                          placement_words(shape.placement), with_name, gain, without_name);
            lines->push_back(line);
        }
        mean_gains.push_back(shapes.empty() ? 1.0 : std::exp(log_gain / double(shapes.size())));
    } while (rule_needs_second_measurement(mean_gains));
    const bool pays = rule_confirmed(mean_gains);
    char line[240];
    int len = std::snprintf(line, sizeof line, "blocked path: %s %.3fx of %s (geometric mean)", with_name,
                            mean_gains[0], without_name);
    if (mean_gains.size() > 1)
        len += std::snprintf(line + len, sizeof line - size_t(len), ", measured again %.3fx", mean_gains[1]);
    std::snprintf(line + len, sizeof line - size_t(len), ": %s", pays ? with_name : without_name);
    lines->push_back(line);
    return pays;
}

double seconds_per_call(Problem& problem, const ridge::GemmPlan& plan) {
    run_for_seconds(problem, plan, 1);
    return run_for_seconds(problem, plan, 1);
}

namespace {

using ridge_bench::median;

// GFLOP/s samples[plan][round]: one warm-up call each, then `rounds` rounds in
// which every plan runs once, in a rotating order (a team's plan after one
// untimed call).
std::vector<std::vector<double>> interleaved_samples(Problem& problem, const Plans& plans, int rounds,
                                                     int min_calls) {
    const size_t count = plans.size();
    std::vector<int> calls(count);
    for (size_t i = 0; i < count; ++i) {
        const double once = seconds_per_call(problem, plans[i]);  // also the warm-up
        calls[i] = int(std::clamp(kMinSampleSeconds / std::max(once, 1e-9), double(std::max(1, min_calls)), 1000.0));
    }
    std::vector<std::vector<double>> rates(count);
    for (int r = 0; r < rounds; ++r) {
        for (size_t j = 0; j < count; ++j) {
            const size_t i = (j + size_t(r)) % count;  // rotate who goes first
            // A team's sample starts with its threads awake, as in a caller
            // that calls on a team call after call: after another plan's 2 ms
            // on one thread, libgomp has put the team's other thread to sleep.
            if (plans[i].threads > 1) run_for_seconds(problem, plans[i], 1);
            const double s = run_for_seconds(problem, plans[i], calls[i]);
            rates[i].push_back(problem.flops() * calls[i] / s * 1e-9);
        }
    }
    return rates;
}

}  // namespace

double Timed::paired_ratio(size_t i, size_t j) const {
    std::vector<double> per_round;
    for (size_t r = 0; r < rates[i].size(); ++r) per_round.push_back(rates[i][r] / rates[j][r]);
    return median(per_round);
}

Timed time_plans(Problem& problem, const Plans& plans, int rounds, int min_calls) {
    Timed t;
    t.rates = interleaved_samples(problem, plans, rounds, min_calls);
    for (size_t i = 0; i < t.rates.size(); ++i) {
        t.gflops.push_back(median(t.rates[i]));
        t.ratio.push_back(t.paired_ratio(i, 0));
    }
    return t;
}

std::vector<double> interleaved_gflops(Problem& problem, const Plans& plans, int rounds) {
    return time_plans(problem, plans, rounds).gflops;
}

}  // namespace ridge_tune
