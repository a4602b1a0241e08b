#include "gemv_prefetch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "dispatch/dispatch.h"
#include "gemm/gemv.h"
#include "kernels/convert.h"
#include "median.h"

namespace ridge_tune {
namespace {

// A 2% gain at least: below that, two builds of the same code differ by as
// much on this kind of machine, and the library's figure stands.
constexpr double kMinGain = 1.02;

// Rows of the timed A (a column of fp32 is 16 KiB): its columns make up the
// rest, up to 1 GiB of fp32 whatever the cache.
constexpr int64_t kRows = 4096;
constexpr int64_t kMaxColumns = 65536;

// Seconds of one GEMV call.
double time_call(const ridge::GemvArgs& g, const ridge::GemvKernel& ker, int64_t prefetch) {
    const auto t0 = std::chrono::steady_clock::now();
    ridge::gemv(g, ker, 1, prefetch);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

GemvPrefetchChoice search_gemv_prefetch(int rounds) {
    GemvPrefetchChoice out;
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const int64_t builtin = ridge::builtin_crossovers().gemv_prefetch_elements;
    if (cfg.gemv[int(ridge::Dtype::f32)] == nullptr || cfg.gemv[int(ridge::Dtype::bf16)] == nullptr || builtin <= 0)
        return out;
    // The kernels as the library runs them on an A from memory.
    const ridge::GemvKernel f32 = ridge::from_memory(*cfg.gemv[int(ridge::Dtype::f32)]);
    const ridge::GemvKernel bf16 = ridge::from_memory(*cfg.gemv[int(ridge::Dtype::bf16)]);
    // Four times the LLC of fp32 (twice of bf16), at least 128 MiB of fp32: from DRAM for both.
    const double llc = std::max(cfg.gemv_from_memory_min_bytes, 32.0 * 1024 * 1024);
    const int64_t cols = std::min<int64_t>(int64_t(std::ceil(4.0 * llc / (4.0 * kRows))), kMaxColumns);
    std::vector<float> a32(size_t(kRows * cols)), x32(size_t(std::max(kRows, cols)), 0.5f);
    std::vector<uint16_t> a16(a32.size()), x16(x32.size(), ridge::f32_to_bf16(0.5f));
    for (size_t i = 0; i < a32.size(); ++i) {
        a32[i] = float(int(i % 17) - 8) * 0.125f;
        a16[i] = ridge::f32_to_bf16(a32[i]);
    }
    std::vector<float> y(size_t(std::max(kRows, cols)));
    struct Case {
        const char* name;
        const ridge::GemvKernel* ker;
        ridge::GemvArgs args;
    };
    std::vector<Case> cases;
    for (bool trans : {false, true})
        for (bool half : {false, true}) {
            ridge::GemvArgs g;
            g.input = half ? ridge::Dtype::bf16 : ridge::Dtype::f32;
            g.trans = trans, g.m = kRows, g.n = cols, g.lda = kRows;
            g.a = half ? static_cast<const void*>(a16.data()) : a32.data();
            g.x = half ? static_cast<const void*>(x16.data()) : x32.data();
            g.y = y.data();
            cases.push_back({half ? (trans ? "bf16 T" : "bf16 N") : (trans ? "fp32 T" : "fp32 N"), half ? &bf16 : &f32, g});
        }
    double log_gain = 0;
    for (const Case& c : cases) {
        time_call(c.args, *c.ker, builtin);  // warm-up: the first pass maps A's pages
        std::vector<double> gain;            // seconds with the prefetch over seconds without, per round
        for (int r = 0; r < rounds; ++r) {
            // Alternate which goes first, so neither always follows the other.
            const double first = time_call(c.args, *c.ker, r % 2 ? 0 : builtin);
            const double second = time_call(c.args, *c.ker, r % 2 ? builtin : 0);
            gain.push_back(r % 2 ? second / first : first / second);
        }
        const double g = ridge_bench::median(gain);
        log_gain += std::log(g);
        char line[160];
        std::snprintf(line, sizeof line, "GEMV %s %lldx%lld (A from memory): no software prefetch %.3fx of %lld ahead",
                      c.name, (long long)kRows, (long long)cols, g, (long long)builtin);
        out.lines.push_back(line);
    }
    const double mean_gain = std::exp(log_gain / double(cases.size()));
    out.elements = mean_gain >= kMinGain ? 0 : builtin;
    char line[160];
    std::snprintf(line, sizeof line, "GEMV: %.3fx (geometric mean) without: %s", mean_gain,
                  out.elements == 0 ? "A left to the hardware prefetchers" : "the library's prefetch kept");
    out.lines.push_back(line);
    return out;
}

}  // namespace ridge_tune
