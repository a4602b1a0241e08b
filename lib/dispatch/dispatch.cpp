// One-time decisions (ISA, kernel, blocking) and per-call ones (threads).
#include "dispatch/dispatch.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tuning/model.h"
#include "tuning/topology.h"

namespace ridge {
namespace {

// A thread must get at least this much work to pay for waking it: a fork/join
// of an OpenMP team costs a few microseconds, and 8 MFLOP is ~40 us of one
// core's fp32 FMA throughput, so the overhead stays within a few percent.
constexpr double kMinFlopsPerThread = 8e6;

thread_local int tl_thread_override = 0;
// Up to this volume m*n*k, reading A and B in place beats packing them.
// Measured on this project's AVX-512 machine (square NN shapes, each path
// forced, 1 thread): unpacked is 1.7x faster
// at 32^3, 1.4x at 64^3, 1.07x at 128^3, even at 192^3, 0.9x at 256^3.
// 160^3 sits inside the even range. A profile may move it (issue: tuner).
constexpr double kSmallPathMaxVolume = 160.0 * 160.0 * 160.0;

// The small path reads op(A) many times in place (once per NR columns of C), and
// packs all of it when transposed: only worth it while op(A) stays in L2.
// 256 Ki floats (1 MiB, padded to whole MR panels) is the smallest L2 of current x86 cores.
constexpr double kSmallPathMaxAFloats = 256.0 * 1024.0;

bool use_small_path(const GemmKernel& kernel, const GemmArgsF32& g) {
    const double padded_a = double((g.m + kernel.MR - 1) / kernel.MR * kernel.MR) * double(g.k);
    return kernel.small_f32 != nullptr && padded_a <= kSmallPathMaxAFloats &&
           double(g.m) * double(g.n) * double(g.k) <= kSmallPathMaxVolume;
}

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return (v != nullptr && *v != '\0') ? v : nullptr;
}

void choose_isa(RuntimeConfig& cfg) {
    const Isa best = best_supported_isa();
    cfg.isa = best;
    cfg.isa_reason = std::string("best ISA this CPU and OS support (CPUID, XGETBV): ") + isa_name(best);
    const char* forced = env("RIDGE_ISA");
    if (forced == nullptr) return;
    Isa wanted;
    if (!parse_isa(forced, &wanted)) {
        cfg.isa_reason += std::string("; RIDGE_ISA=") + forced + " is not one of avx512, avx2, ref: ignored";
    } else if (!cpu_supports(wanted)) {
        cfg.isa_reason += std::string("; RIDGE_ISA=") + forced + " is not supported here: ignored";
    } else {
        cfg.isa = wanted;
        cfg.isa_reason = std::string("forced by RIDGE_ISA=") + forced;
    }
}

int default_thread_count() {
    if (const char* v = env("RIDGE_NUM_THREADS")) {
        const long n = std::strtol(v, nullptr, 10);
        if (n >= 1) return static_cast<int>(std::min(n, 1024L));
    }
    return std::max(1, omp_get_max_threads());  // honours OMP_NUM_THREADS
}

void print_config(const RuntimeConfig& cfg) {
    const CacheTopology& topo = machine_topology();
    const BlockingParams& bp = cfg.sgemm_blocking;
    std::fprintf(stderr, "ridge: ISA %s (%s)\n", isa_name(cfg.isa), cfg.isa_reason.c_str());
    std::fprintf(stderr, "ridge: sgemm kernel %s (MR=%lld NR=%lld)\n", cfg.sgemm_kernel->name,
                 (long long)bp.MR, (long long)bp.NR);
    for (const CacheLevel* c : {&topo.l1, &topo.l2, &topo.l3})
        std::fprintf(stderr, "ridge: L%d %lld KiB per core, %d-way, %d B lines [%s]\n", c->level,
                     (long long)(c->size_bytes / 1024), c->ways, c->line_bytes, c->source.c_str());
    for (const std::string& note : topo.notes) std::fprintf(stderr, "ridge: note: %s\n", note.c_str());
    std::fprintf(stderr,
                 "ridge: sgemm blocking KC=%lld (L1) MC=%lld (L2) NC=%lld (L3) from the Low et al. "
                 "model\n",
                 (long long)bp.KC, (long long)bp.MC, (long long)bp.NC);
    std::fprintf(stderr, "ridge: default threads %d\n", cfg.default_threads);
}

RuntimeConfig make_config() {
    RuntimeConfig cfg;
    cfg.verbose = env("RIDGE_VERBOSE") != nullptr && std::string(env("RIDGE_VERBOSE")) != "0";
    choose_isa(cfg);
    cfg.sgemm_kernel = find_gemm_kernel(Dtype::f32, cfg.isa);
    cfg.sgemm_blocking = blocking_from_model(machine_topology(), cfg.sgemm_kernel->MR,
                                             cfg.sgemm_kernel->NR, sizeof(float));
    cfg.default_threads = default_thread_count();
    if (cfg.verbose) print_config(cfg);
    return cfg;
}

}  // namespace

const RuntimeConfig& runtime_config() {
    static const RuntimeConfig cfg = make_config();
    return cfg;
}

void set_thread_count_override(int threads) { tl_thread_override = std::max(0, threads); }
int thread_count_override() { return tl_thread_override; }

int threads_for(double flops) {
    if (omp_in_parallel()) return 1;  // never nest teams inside a caller's parallel region
    const int wanted = tl_thread_override > 0 ? tl_thread_override : runtime_config().default_threads;
    const double useful = std::max(1.0, flops / kMinFlopsPerThread);
    return static_cast<int>(std::min<double>(wanted, useful));
}

ridge_status dispatch_sgemm(const GemmArgsF32& args) {
    const RuntimeConfig& cfg = runtime_config();
    GemmPlan plan;
    plan.kernel = cfg.sgemm_kernel;
    plan.blocking = cfg.sgemm_blocking;
    plan.threads = threads_for(2.0 * double(args.m) * double(args.n) * double(args.k));
    plan.small_path = use_small_path(*plan.kernel, args);
    return gemm_f32(args, plan);
}

}  // namespace ridge
