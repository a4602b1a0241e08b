// Measured compute roofs. Each function runs `iterations` rounds of independent
// FMAs and returns the flops it did; callers time it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge_bench {

double fma_flops_avx512(int64_t iterations);
double fma_flops_avx2(int64_t iterations);
double dpbf16_flops_avx512bf16(int64_t iterations);

// The compute probes, one per instruction family a kernel of ridge runs on:
// "avx512" and "avx2" (fp32 FMA, zmm / ymm), "avx512bf16" (vdpbf16ps zmm) and
// "amx" (tdpbf16ps). `iterations` gives each about the same time per run
// (an AMX iteration does 128 times the flops of an FMA one).
struct PeakProbe {
    const char* family;     // as the suffix of a kernel's name ("ukr_..._32x32__amx")
    const char* benchmark;  // its Google Benchmark name in ridge-bench, "BM_peak/..."
    const char* context;    // the start-up figure's key in ridge-bench's JSON context
    double (*run)(int64_t iterations);
    int64_t iterations;
};
// The probe of `family`, or null for a family without one ("ref").
const PeakProbe* peak_probe(const std::string& family);
// Every probe this CPU can run, in the order above.
std::vector<const PeakProbe*> probes_on_this_cpu();

// Median GFLOP/s of a few short runs of `family`'s probe on this thread; 0
// when the CPU lacks that instruction or the family has no probe.
double measured_peak_gflops(const std::string& family);

// Reads `count` floats with zmm (ymm) loads; returns the bytes read.
double read_bytes_avx512(const float* data, int64_t count);
double read_bytes_avx2(const float* data, int64_t count);
// The widest of the two this CPU has, else a portable loop (bandwidth.cpp).
double read_bytes(const float* data, int64_t count);
// "zmm", "ymm" or "portable": the loads read_bytes uses on this CPU.
const char* bandwidth_vectors();

// Median read bandwidth (GB/s) of one thread streaming a buffer of `bytes`
// (the working set decides which level of the memory it measures).
double measured_read_gbps(int64_t bytes);

// Short probes (ridge-bench --quick): the two functions above time one run
// after the warm-up instead of the median of several, on a tenth of the FMA
// loop and one pass over the buffer: a smoke run's figures (under valgrind,
// ~10x faster), not a measurement to quote.
void set_quick_probes(bool quick);
bool quick_probes();

}  // namespace ridge_bench
