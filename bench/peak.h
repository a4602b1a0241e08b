// Measured compute roofs. Each function runs `iterations` rounds of independent
// FMAs and returns the flops it did; callers time it.
#pragma once

#include <cstdint>
#include <string>

namespace ridge_bench {

double fma_flops_avx512(int64_t iterations);
double fma_flops_avx2(int64_t iterations);
double dpbf16_flops_avx512bf16(int64_t iterations);
bool has_avx512_bf16();

// Median GFLOP/s of a few short runs of the given ISA's FMA loop on this
// thread ("avx512" or "avx2"); 0 when the CPU lacks that ISA.
double measured_fp32_peak_gflops(const std::string& isa);

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
