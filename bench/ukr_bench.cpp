// BM_ukr/<dtype>/<isa>/<MR>x<NR>: one microkernel on panels that stay in L1,
// the ceiling for everything the five loops add around it.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "dispatch/registry.h"
#include "ukr_bench.h"

namespace ridge_bench {
namespace {

constexpr int64_t kKc = 256;  // a typical KC; the panels (MR+NR) x KC floats sit in L1

void bm_ukr(benchmark::State& state, const ridge::GemmKernel* ker) {
    const int64_t MR = ker->MR, NR = ker->NR;
    float* a = static_cast<float*>(std::aligned_alloc(64, MR * kKc * sizeof(float)));
    float* b = static_cast<float*>(std::aligned_alloc(64, NR * kKc * sizeof(float)));
    std::vector<float> c(MR * NR, 0.0f);
    for (int64_t i = 0; i < MR * kKc; ++i) a[i] = 1e-3f * float(i % 7);
    for (int64_t i = 0; i < NR * kKc; ++i) b[i] = 1e-3f * float(i % 5);
    if (ker->thread_begin) ker->thread_begin();  // as the driver does around a thread's calls
    for (auto _ : state) {
        ker->ukr(kKc, 1.0f, a, b, 1.0f, c.data(), MR);
        benchmark::ClobberMemory();
    }
    if (ker->thread_end) ker->thread_end();
    state.counters["FLOPS"] = benchmark::Counter(2.0 * MR * NR * kKc, benchmark::Counter::kIsIterationInvariantRate);
    std::free(a);
    std::free(b);
}

}  // namespace

void register_ukr_benchmarks() {
    // One benchmark per microkernel: entries that share a kernel (fp16 and bf16
    // inputs converted to fp32 while packing) would time the same code again.
    for (const ridge::GemmKernel& k : ridge::gemm_kernels()) {
        const bool bf16_pairs = k.packed_bytes == 2;  // the vdpbf16ps and AMX kernels read bf16
        if (!ridge::cpu_supports(k.isa) || (k.input != ridge::Dtype::f32 && !bf16_pairs)) continue;
        const std::string name = std::string("BM_ukr/") + (bf16_pairs ? "bf16/" : "f32/") + ridge::isa_name(k.isa) + "/" +
                                 std::to_string(k.MR) + "x" + std::to_string(k.NR);
        benchmark::RegisterBenchmark(name.c_str(), bm_ukr, &k)->UseRealTime();
    }
}

}  // namespace ridge_bench
