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

// Reads `count` floats with zmm (ymm) loads as `streams` equal segments read
// side by side (256 bytes from each in turn); returns the bytes read.
double read_bytes_avx512(const float* data, int64_t count, int streams);
double read_bytes_avx2(const float* data, int64_t count, int streams);
// The widest of the two this CPU has, else a portable loop (bandwidth.cpp).
// One stream for the tuner's cache sweep, whose knees are a single stream's.
double read_bytes(const float* data, int64_t count, int streams = 1);
// "zmm", "ymm" or "portable": the loads read_bytes uses on this CPU.
const char* bandwidth_vectors();

// The stream counts a read roof tries, its figure the fastest. A roof is the
// most a level can deliver, and a kernel that reads several columns at once
// (a GEMV, a packing loop) keeps more of the hardware prefetchers' streams
// busy than one sequential read: on the Zen 4 VM one stream read 23-27 GB/s
// from 128-256 MiB where 2-8 read 26-33, and at 16-32 MiB 2 streams read 1.1x
// one; at 1 GiB one stream was fastest (25 against 13-19: the segments'
// pages far apart), and past 8 streams every size read slower (16: 0.3-0.9x).
// A GEMV reading A from memory ran 102-145% of the one-stream rate in the same
// run (ridge-bench tables, Zen 4 and Intel VM).
inline constexpr int kReadStreamCounts[] = {1, 2, 4, 8};

struct ReadRate {
    double gbps = 0;  // median of its samples
    int streams = 1;  // the stream count that gave it
};
// One thread streaming a buffer of `bytes` (the working set decides which
// level of the memory it measures): the fastest of kReadStreamCounts' medians.
ReadRate measured_read_rate(int64_t bytes);

// Short probes (ridge-bench --quick): the two functions above time one run
// after the warm-up instead of the median of several, on a tenth of the FMA
// loop and one pass over the buffer: a smoke run's figures (under valgrind,
// ~10x faster), not a measurement to quote.
void set_quick_probes(bool quick);
bool quick_probes();

}  // namespace ridge_bench
