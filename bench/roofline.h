// ridge-bench roofline: this machine's compute and bandwidth roofs measured in
// one short run, written as JSON and as an SVG roofline (roofline.cpp).
#pragma once

#include <cstdint>

namespace ridge_bench {

// `ridge-bench roofline [--json FILE] [--svg FILE] [--quick]`; argv[0] is "roofline".
int roofline_main(int argc, char** argv);

// Reads, modifies and writes back `count` floats with zmm (ymm) loads and stores;
// returns the bytes moved (read + written).
double read_write_bytes_avx512(float* data, int64_t count);
double read_write_bytes_avx2(float* data, int64_t count);
// The widest of the two this CPU has, else a portable loop (bandwidth.cpp).
double read_write_bytes(float* data, int64_t count);

// Runs `iterations` rounds of six independent AMX tdpbf16ps; returns the flops.
double tdpbf16_flops_amx(int64_t iterations);

}  // namespace ridge_bench
