// The profile as JSON: what the library reads (tuning/profile.h) plus the
// provenance a person needs to trust it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "a_in_place.h"
#include "cache_probe.h"
#include "gemv_prefetch.h"
#include "ir_outside_jr.h"
#include "a_packed_while_computing.h"
#include "one_block_of_a.h"
#include "model_table.h"
#include "search.h"
#include "tuning/profile.h"

namespace ridge_tune {

struct TuneRun {
    ridge::CpuSignature cpu;
    double budget_seconds = 0;
    double seconds = 0;
    TunerTopology topology;
    std::vector<ModelRow> model;
    std::vector<KernelSearch> searches;       // the kernels the library runs by default here
    Crossover crossover;
    GemvPrefetchChoice gemv;                  // gemv.elements -1: not measured
    AInPlaceChoice a_in_place;                // a_in_place.in_place -1: not measured
    IrOutsideJrChoice ir_outside_jr;          // ir_outside_jr.ir_outside -1: not measured
    APackedWhileComputingChoice a_packed_while_computing;  // .from_memory -1: not measured
    OneBlockOfAChoice one_block_of_a;         // .one_block -1: not measured
    double small_max_a_floats = 0;            // kept at the library's figure (recorded)
    std::vector<std::pair<const KernelSearch*, GridResult>> grids;  // --exhaustive
};

nlohmann::ordered_json profile_json(const TuneRun& run);

// The profile's stream_c.min_bytes: the whole L3 the sweep measured (per-core
// size times cores sharing) where hwloc's was rejected; 0 where the library's
// own L3 stands (hwloc's, or the fallback), and the profile leaves it out.
int64_t measured_stream_c_min_bytes(const TuneRun& run);

// The profile key of a kernel, as the library reads it (ridge::profile_kernel_key).
std::string profile_key(ridge::Dtype input, const ridge::GemmKernel& k);

}  // namespace ridge_tune
