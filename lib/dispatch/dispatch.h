// Picks the kernel, the blocking and the thread count for a call.
#pragma once

#include <cstdint>
#include <string>

#include "gemm/gemm.h"

namespace ridge {

// What the library decided once, at first use.
struct RuntimeConfig {
    Isa isa = Isa::ref;                  // the ISA the kernels are taken from
    std::string isa_reason;              // why that ISA (RIDGE_ISA, CPUID, ...)
    const GemmKernel* sgemm_kernel = nullptr;
    BlockingParams sgemm_blocking;
    int default_threads = 1;             // RIDGE_NUM_THREADS, else OpenMP's max threads
    bool verbose = false;                // RIDGE_VERBOSE
};
const RuntimeConfig& runtime_config();

// Threads for a problem of `flops` from the calling thread: 1 inside a caller's
// parallel region, else the thread's setting capped so each thread gets real work.
int threads_for(double flops);

// Plan and run one checked, column-major sgemm.
ridge_status dispatch_sgemm(const GemmArgsF32& args);

// Per-calling-thread thread count (0 = default).
void set_thread_count_override(int threads);
int thread_count_override();

}  // namespace ridge
