#include "model_table.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "kernels/probe.h"
#include "peak.h"
#include "roofline.h"
#include "tuning/model.h"

namespace ridge_tune {
namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

// GFLOP/s of the best of a few short runs of a throughput probe.
double probe_gflops(double (*probe)(int64_t), int64_t iterations) {
    probe(iterations / 4);  // warm-up: wide units power up
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const double flops = probe(iterations);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::max(best, flops / s * 1e-9);
    }
    return best;
}

// The roof of the instruction a kernel's inner loop issues, measured once per ISA.
double kernel_peak(const ridge::GemmKernel& k) {
    static double fp32_avx512 = -1, fp32_avx2 = -1, dpbf16 = -1, amx = -1;
    switch (k.isa) {
        case ridge::Isa::amx:
            if (amx < 0) amx = probe_gflops(ridge_bench::tdpbf16_flops_amx, 200000);
            return amx;
        case ridge::Isa::avx512bf16:
            if (dpbf16 < 0) dpbf16 = probe_gflops(ridge::probe_dpbf16__avx512bf16, 200000);
            return dpbf16;
        case ridge::Isa::avx512:
            if (fp32_avx512 < 0) fp32_avx512 = ridge_bench::measured_peak_gflops("avx512");
            return fp32_avx512;
        case ridge::Isa::avx2:
            if (fp32_avx2 < 0) fp32_avx2 = ridge_bench::measured_peak_gflops("avx2");
            return fp32_avx2;
        case ridge::Isa::ref:
            return 0;  // compiler-vectorized code: no instruction roof to quote
    }
    return 0;
}

}  // namespace

LevelIntensity intensity_under(const ridge::GemmKernel& k, ridge::Dtype input, const ridge::BlockingParams& b,
                               int64_t n) {
    const double p = k.packed_bytes, pin = ridge::dtype_bytes(input);
    const double MR = k.MR, NR = k.NR, KC = double(b.KC), MC = double(b.MC), NC = double(b.NC), N = double(n);
    LevelIntensity I;
    I.l1 = 2.0 * MR * NR / (p * (MR + NR));
    I.l2 = 2.0 * MR * NR * KC / (p * KC * (MR + NR * MR / MC));
    I.l3 = 2.0 * MC / p;
    // A is packed once per jc block; the driver's blocks hold up to NC + NC/8 columns.
    const double jc_blocks = ceil_div(N, NC + std::floor(NC / 8));
    const double memory_bytes = pin * N * N * jc_blocks + pin * N * N + 8.0 * N * N * ceil_div(N, KC);
    I.memory = 2.0 * N * N * N / memory_bytes;
    return I;
}

std::vector<ModelRow> model_table(const TunerTopology& topo) {
    const ridge::CacheTopology caches = topo.model_input();
    const double bw[4] = {topo.level[0].read_gbps, topo.level[1].read_gbps, topo.level[2].read_gbps,
                          topo.memory_read_gbps};
    std::vector<ModelRow> rows;
    for (const ridge::GemmKernel& k : ridge::gemm_kernels()) {
        ModelRow r{k.input, &k, ridge::cpu_supports(k.isa), {}, {}, 0, {}, "-"};
        r.model = ridge::blocking_from_model(caches, k.MR, k.NR, k.packed_bytes, k.min_KC);
        r.intensity = intensity_under(k, k.input, r.model, kReferenceN);
        if (r.runs_here) r.peak_gflops = kernel_peak(k);
        if (r.peak_gflops > 0) {
            const double need[4] = {r.intensity.l1, r.intensity.l2, r.intensity.l3, r.intensity.memory};
            const char* names[4] = {"L1", "L2", "L3", "memory"};
            r.binds = "none";
            for (int l = 0; l < 4; ++l) {
                r.ridge_point[l] = bw[l] > 0 ? r.peak_gflops / bw[l] : 0;
                if (r.binds == "none" && need[l] < r.ridge_point[l]) r.binds = names[l];
            }
        }
        rows.push_back(r);
    }
    return rows;
}

void print_model_table(const std::vector<ModelRow>& rows, const TunerTopology& topo) {
    std::printf("\nModel (Low et al.) on these caches; intensity (FLOP/B) each level must supply at n=%lld,\n"
                "and in [brackets] the level's ridge point = kernel peak / one thread's read bandwidth\n"
                "(L1 %.0f, L2 %.0f, L3 %.0f, memory %.1f GB/s). A level binds where intensity < ridge point.\n\n",
                (long long)kReferenceN, topo.level[0].read_gbps, topo.level[1].read_gbps, topo.level[2].read_gbps,
                topo.memory_read_gbps);
    std::printf("%-5s %-34s %5s %5s %5s %6s %7s %13s %13s %13s %13s  %s\n", "input", "kernel", "MRxNR", "KC", "MC",
                "NC", "peak", "L1", "L2", "L3", "memory", "binds");
    for (const ModelRow& r : rows) {
        char shape[16];
        std::snprintf(shape, sizeof shape, "%dx%d", r.kernel->MR, r.kernel->NR);
        const double need[4] = {r.intensity.l1, r.intensity.l2, r.intensity.l3, r.intensity.memory};
        char cells[4][32];
        for (int l = 0; l < 4; ++l) {
            if (r.peak_gflops > 0)
                std::snprintf(cells[l], sizeof cells[l], "%.3g [%.2g]", need[l], r.ridge_point[l]);
            else
                std::snprintf(cells[l], sizeof cells[l], "%.3g", need[l]);
        }
        char peak[16] = "-";
        if (r.peak_gflops > 0) std::snprintf(peak, sizeof peak, "%.0f", r.peak_gflops);
        std::printf("%-5s %-34s %5s %5lld %5lld %6lld %7s %13s %13s %13s %13s  %s%s\n", ridge::dtype_name(r.input),
                    r.kernel->name, shape, (long long)r.model.KC, (long long)r.model.MC, (long long)r.model.NC, peak,
                    cells[0], cells[1], cells[2], cells[3], r.binds.c_str(), r.runs_here ? "" : " (not on this CPU)");
    }
}

}  // namespace ridge_tune
