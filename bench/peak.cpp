#include "peak.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "dispatch/cpu_features.h"
#include "kernels/probe.h"

namespace ridge_bench {

namespace {
bool g_quick = false;  // set once by ridge-bench's main, before any probe runs
}  // namespace

void set_quick_probes(bool quick) { g_quick = quick; }
bool quick_probes() { return g_quick; }

double measured_read_gbps(int64_t bytes) {
    std::vector<float> buf(size_t(bytes / 4), 1.0f);
    std::vector<double> rates;
    const int passes = g_quick ? 1 : int(std::max<int64_t>(1, (int64_t(256) << 20) / bytes));  // >= 256 MiB per sample
    for (int rep = 0; rep < (g_quick ? 2 : 6); ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        double read = 0;
        for (int p = 0; p < passes; ++p) read += read_bytes(buf.data(), int64_t(buf.size()));
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (rep > 0) rates.push_back(read / s * 1e-9);  // rep 0 faults the pages in and warms caches
    }
    std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
    return rates[rates.size() / 2];
}

double measured_fp32_peak_gflops(const std::string& isa) {
    if (!ridge::cpu_supports(isa == "avx512" ? ridge::Isa::avx512 : ridge::Isa::avx2)) return 0;
    auto run = isa == "avx512" ? fma_flops_avx512 : fma_flops_avx2;
    run(200000);  // warm-up: let the core reach its AVX-512 license and clock
    std::vector<double> rates;
    for (int rep = 0; rep < (g_quick ? 1 : 7); ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const double flops = run(g_quick ? 200000 : 2000000);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        rates.push_back(flops / s * 1e-9);
    }
    std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
    return rates[rates.size() / 2];
}

}  // namespace ridge_bench

namespace ridge_bench {
// The vdpbf16ps probe lives in the library (lib/kernels/avx512bf16), which
// already knows whether the CPU has it; the bench reuses both.
bool has_avx512_bf16() { return ridge::cpu_supports(ridge::Isa::avx512bf16); }
double dpbf16_flops_avx512bf16(int64_t iterations) { return ridge::probe_dpbf16__avx512bf16(iterations); }
double fma_flops_avx512(int64_t iterations) { return ridge::probe_fma_f32__avx512(iterations); }
}  // namespace ridge_bench
