#include "peak.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "dispatch/cpu_features.h"
#include "kernels/probe.h"

namespace ridge_bench {

double measured_read_gbps(int64_t bytes) {
    std::vector<double> buf(size_t(bytes / 8), 1.0);
    std::vector<double> rates;
    for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // 4 chains so the adds keep up with memory
        for (size_t i = 0; i + 4 <= buf.size(); i += 4) {
            s0 += buf[i];
            s1 += buf[i + 1];
            s2 += buf[i + 2];
            s3 += buf[i + 3];
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        volatile double sink = s0 + s1 + s2 + s3;
        (void)sink;
        if (rep > 0) rates.push_back(double(bytes) / s * 1e-9);  // rep 0 faults the pages in
    }
    std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
    return rates[rates.size() / 2];
}

double measured_fp32_peak_gflops(const std::string& isa) {
    auto run = isa == "avx512" ? fma_flops_avx512 : fma_flops_avx2;
    run(200000);  // warm-up: let the core reach its AVX-512 license and clock
    std::vector<double> rates;
    for (int rep = 0; rep < 7; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const double flops = run(2000000);
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
}  // namespace ridge_bench
