// Instruction-throughput probes: each runs `iterations` rounds of independent
// operations and returns the flops done; the caller times it.
#pragma once

#include <cstdint>

namespace ridge {

double probe_fma_f32__avx512(int64_t iterations);
double probe_dpbf16__avx512bf16(int64_t iterations);

}  // namespace ridge
