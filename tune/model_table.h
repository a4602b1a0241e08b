// The model's table: for every registered kernel, the block sizes of the
// Low et al. model on the tuner's caches, and the arithmetic intensity each
// memory level must supply under that blocking, beside the level's ridge point
// (peak / bandwidth): where the intensity is below the ridge point, that level
// binds (the kernel waits for it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cache_probe.h"
#include "dispatch/registry.h"
#include "tuning/blocking.h"

namespace ridge_tune {

// Flops per byte each level must deliver for a square problem of `n`.
struct LevelIntensity {
    double l1 = 0;      // registers <- L1: the microkernel's loads of A and B
    double l2 = 0;      // L1 <- L2: A micro-panels, B micro-panels amortized over MC
    double l3 = 0;      // L2 <- L3: the B panel once per MC block
    double memory = 0;  // L3 <- memory: A once per NC block, B once, C once per KC block
};
LevelIntensity intensity_under(const ridge::GemmKernel& k, ridge::Dtype input, const ridge::BlockingParams& b,
                               int64_t n);

struct ModelRow {
    ridge::Dtype input;
    const ridge::GemmKernel* kernel;
    bool runs_here;                 // the CPU has the kernel's ISA
    ridge::BlockingParams model;
    LevelIntensity intensity;       // at n = kReferenceN
    double peak_gflops = 0;         // measured roof of the kernel's instruction (0: not measured)
    double ridge_point[4] = {};     // peak / bandwidth of L1, L2, L3, memory (FLOP/B)
    std::string binds;              // the first level whose intensity is below its ridge point, or "none"
};

constexpr int64_t kReferenceN = 2048;

std::vector<ModelRow> model_table(const TunerTopology& topo);
void print_model_table(const std::vector<ModelRow>& rows, const TunerTopology& topo);

}  // namespace ridge_tune
