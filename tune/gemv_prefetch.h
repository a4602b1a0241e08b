// ridge-tune's GEMV step: whether the GEMV kernels prefetch an A that comes
// from DRAM (the library's figure, kGemvPrefetchElements) or leave it to the
// hardware prefetchers, which stream faster on some machines (paths.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge_tune {

struct GemvPrefetchChoice {
    int64_t elements = -1;           // the profile's gemv.prefetch_elements; -1: not measured
    std::vector<std::string> lines;  // what was measured, for the log and the profile
};

// fp32 and bf16 GEMV, N and T, one thread, on an A of at least four times the
// last-level cache, through the kernels the library runs on an A from memory
// (ridge::from_memory): the library's prefetch distance against none, interleaved
// call by call over `rounds` rounds. None is chosen when its paired speed-up,
// the geometric mean over the four cases, is at least kMinGain; else the
// library's figure, recorded as measured.
GemvPrefetchChoice search_gemv_prefetch(int rounds);

}  // namespace ridge_tune
