// Cache sizes the blocking model uses: read from hwloc, checked, or a documented fallback.
#pragma once

#include <cstddef>
#include <cstdint>

#include "util/fixed_text.h"

namespace ridge {

struct CacheLevel {
    int level = 0;            // 1, 2, 3
    int64_t size_bytes = 0;   // the share one core may use (total / cores sharing it)
    int ways = 0;             // associativity
    int line_bytes = 0;
    int cores_sharing = 1;
    FixedText<96> source;     // "hwloc", or "fallback (<why>)"
};

struct CacheTopology {
    CacheLevel l1, l2, l3;
    // One line per figure that was rejected, and why: at most one per level for
    // its own checks and one for the order between levels.
    static constexpr int kMaxNotes = 6;
    FixedText<128> notes[kMaxNotes];
    int note_count = 0;
};

// As hwloc reports it, before any check.
struct RawCache {
    int level = 0;
    int64_t size_bytes = 0;
    int ways = 0;
    int line_bytes = 0;
    int cores_sharing = 1;
};

// The data caches hwloc reported, innermost first (no machine has more than 4 levels;
// hwloc's level 5+ would be ignored).
struct RawCaches {
    static constexpr int kMaxLevels = 8;
    RawCache level[kMaxLevels];
    int count = 0;
};

// Reads the first core's data caches from hwloc (the real machine's topology);
// `count` is 0 when hwloc could not be read.
RawCaches read_hwloc_caches();

// The same walk over a topology hwloc loads from elsewhere, so that tests can take
// the whole path (hwloc -> RawCaches -> checked_topology) on machines they do not
// run on. `count` is 0 when hwloc refuses the input (never this machine's caches
// instead). Test inputs only: hwloc 2.9 trusts an XML file, and crashes on one whose
// objects lack nodesets (test/topology/ has complete ones).
RawCaches read_hwloc_caches_from_xml(const char* path);
// `description` in hwloc's synthetic syntax, e.g. "Package:1 L2Cache:2(size=2MiB) Core:1 PU:1".
// hwloc gives every synthetic cache associativity 0 and 64-byte lines, and reads
// "MB" as 10^6 bytes ("MiB" is 2^20).
RawCaches read_hwloc_caches_from_synthetic(const char* description);

// Applies the sanity rules and fallbacks to what hwloc said. Pure: tests feed it odd topologies.
CacheTopology checked_topology(const RawCache* raw, size_t count);

// hwloc's view of this machine, checked; computed once.
const CacheTopology& machine_topology();

// The fallbacks, with where each figure comes from.
CacheLevel fallback_l1();  // 32 KiB 8-way: the smallest L1d of x86-64 cores since 2011
CacheLevel fallback_l2();  // 1 MiB 16-way: Zen 4/5 per-core L2; Intel cores have 1.25-2 MiB
CacheLevel fallback_l3();  // 4 MiB 16-way per core: a 32 MiB Zen L3 shared by 8 cores

}  // namespace ridge
