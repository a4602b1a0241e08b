// The analytical blocking model of Low, Igual, Smith and Quintana-Orti,
// "Analytical Modeling Is Enough for High-Performance BLIS", ACM TOMS 43(2), 2016.
#pragma once

#include <cstdint>

#include "tuning/blocking.h"
#include "tuning/topology.h"

namespace ridge {

// KC, MC and NC for a kernel of MR x NR on caches `topo`, `elem_bytes` per packed element.
// Each of KC, MC, NC is a positive multiple of what the loops around it need
// (MC of MR, NC of NR); KC is a multiple of 8 (panel alignment is the driver's
// business: it lays panels out at depths rounded up to 16 floats).
// min_KC raises KC above the L1 model where a kernel needs longer panels (its
// registry entry says why); MC and NC then follow from that KC.
BlockingParams blocking_from_model(const CacheTopology& topo, int64_t MR, int64_t NR,
                                   int64_t elem_bytes, int64_t min_KC = 0);

// Minimum independent accumulators to hide FMA latency (section 4 of the paper).
constexpr int64_t min_accumulators(int64_t fma_latency_cycles, int64_t fma_ports) {
    return fma_latency_cycles * fma_ports;
}

}  // namespace ridge
