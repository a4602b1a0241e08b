// The caches ridge-tune believes, and where each figure came from: hwloc's
// report when it passes the library's checks, else the knee of a measured
// read-bandwidth sweep, else the library's documented fallback.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "knee.h"
#include "tuning/topology.h"

namespace ridge_tune {

struct CacheFigure {
    int level = 0;
    ridge::RawCache hwloc;           // as hwloc reported it (level 0 when it did not)
    bool hwloc_passed = false;       // the library's checks accepted hwloc's figure
    std::string hwloc_rejection;     // why not, when not
    int64_t measured_bytes = 0;      // the sweep's knee for this level (0: none found)
    ridge::CacheLevel chosen;        // what the model uses
    std::string source;              // "hwloc", "measured", "fallback"
    double read_gbps = 0;            // one thread's read bandwidth from this level
};

struct TunerTopology {
    std::vector<BandwidthPoint> sweep;
    CacheFigure level[3];            // L1, L2, L3
    double memory_read_gbps = 0;     // one thread, working set far beyond L3
    ridge::CacheTopology model_input() const;
};

// Runs the sweep (16 KiB to `max_bytes`, two sizes per octave; ~3-5 s) and
// combines it with hwloc's report.
TunerTopology probe_caches(int64_t max_bytes);

}  // namespace ridge_tune
