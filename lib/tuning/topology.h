// Cache sizes the blocking model uses: read from hwloc, checked, or a documented fallback.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge {

struct CacheLevel {
    int level = 0;            // 1, 2, 3
    int64_t size_bytes = 0;   // the share one core may use (total / cores sharing it)
    int ways = 0;             // associativity
    int line_bytes = 0;
    int cores_sharing = 1;
    std::string source;       // "hwloc", or "fallback: <why>"
};

struct CacheTopology {
    CacheLevel l1, l2, l3;
    std::vector<std::string> notes;  // one line per figure that was rejected, and why
};

// As hwloc reports it, before any check. `ok` is false when hwloc could not be read.
struct RawCache {
    int level = 0;
    int64_t size_bytes = 0;
    int ways = 0;
    int line_bytes = 0;
    int cores_sharing = 1;
};

// Reads the first core's data caches from hwloc (the real machine's topology).
std::vector<RawCache> read_hwloc_caches();

// Applies the sanity rules and fallbacks to what hwloc said. Pure: tests feed it odd topologies.
CacheTopology checked_topology(const std::vector<RawCache>& raw);

// hwloc's view of this machine, checked; computed once.
const CacheTopology& machine_topology();

// The fallbacks, with where each figure comes from.
CacheLevel fallback_l1();  // 32 KiB 8-way: the smallest L1d of x86-64 cores since 2011
CacheLevel fallback_l2();  // 1 MiB 16-way: Zen 4/5 per-core L2; Intel cores have 1.25-2 MiB
CacheLevel fallback_l3();  // 4 MiB 16-way per core: a 32 MiB Zen L3 shared by 8 cores

}  // namespace ridge
