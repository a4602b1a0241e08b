#include "peak.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "dispatch/cpu_features.h"
#include "kernels/probe.h"
#include "roofline.h"

namespace ridge_bench {

namespace {
bool g_quick = false;  // set once by ridge-bench's main, before any probe runs
}  // namespace

void set_quick_probes(bool quick) { g_quick = quick; }
bool quick_probes() { return g_quick; }

ReadRate measured_read_rate(int64_t bytes) {
    std::vector<float> buf(size_t(bytes / 4), 1.0f);
    const int passes = g_quick ? 1 : int(std::max<int64_t>(1, (int64_t(256) << 20) / bytes));  // >= 256 MiB per sample
    ReadRate best;
    for (const int streams : kReadStreamCounts) {
        std::vector<double> rates;
        for (int rep = 0; rep < (g_quick ? 2 : 6); ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            double read = 0;
            for (int p = 0; p < passes; ++p) read += read_bytes(buf.data(), int64_t(buf.size()), streams);
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (rep > 0) rates.push_back(read / s * 1e-9);  // rep 0 faults the pages in and warms caches
        }
        std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
        if (rates[rates.size() / 2] > best.gbps) best = {rates[rates.size() / 2], streams};
        if (g_quick) break;  // a smoke run: one stream
    }
    return best;
}

namespace {
const PeakProbe kProbes[] = {
    {"avx512", "BM_peak/fma/avx512/f32", "peak_fp32_avx512_gflops_1t", fma_flops_avx512, 1000000},
    {"avx2", "BM_peak/fma/avx2/f32", "peak_fp32_avx2_gflops_1t", fma_flops_avx2, 1000000},
    {"avx512bf16", "BM_peak/dpbf16/avx512bf16/bf16", "peak_bf16_avx512bf16_gflops_1t", dpbf16_flops_avx512bf16,
     1000000},
    {"amx", "BM_peak/tdpbf16/amx/bf16", "peak_bf16_amx_gflops_1t", tdpbf16_flops_amx, 1000000 / 128},
};

// Whether the CPU runs the probe: for AMX also whether Linux granted the tile
// permission, which ridge::cpu_features() asks for (without it the first tile
// instruction faults).
ridge::Isa isa_of(const PeakProbe& p) {
    const std::string f = p.family;
    return f == "avx512" ? ridge::Isa::avx512 : f == "avx2" ? ridge::Isa::avx2
         : f == "avx512bf16" ? ridge::Isa::avx512bf16 : ridge::Isa::amx;
}
}  // namespace

const PeakProbe* peak_probe(const std::string& family) {
    for (const PeakProbe& p : kProbes)
        if (family == p.family) return &p;
    return nullptr;
}

std::vector<const PeakProbe*> probes_on_this_cpu() {
    std::vector<const PeakProbe*> out;
    for (const PeakProbe& p : kProbes)
        if (ridge::cpu_supports(isa_of(p))) out.push_back(&p);
    return out;
}

double measured_peak_gflops(const std::string& family) {
    const PeakProbe* probe = peak_probe(family);
    if (!probe || !ridge::cpu_supports(isa_of(*probe))) return 0;
    probe->run(probe->iterations / 5);  // warm-up: let the core reach its AVX-512 license and clock
    std::vector<double> rates;
    for (int rep = 0; rep < (g_quick ? 1 : 7); ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const double flops = probe->run(g_quick ? probe->iterations / 5 : 2 * probe->iterations);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        rates.push_back(flops / s * 1e-9);
    }
    std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
    return rates[rates.size() / 2];
}

}  // namespace ridge_bench

namespace ridge_bench {
// The vdpbf16ps and zmm FMA probes live in the library (lib/kernels), which
// times them to choose its bf16 path; the bench reuses them.
double dpbf16_flops_avx512bf16(int64_t iterations) { return ridge::probe_dpbf16__avx512bf16(iterations); }
double fma_flops_avx512(int64_t iterations) { return ridge::probe_fma_f32__avx512(iterations); }
}  // namespace ridge_bench
