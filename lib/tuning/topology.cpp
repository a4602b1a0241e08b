// hwloc reads the caches; the rules below decide whether to believe it.
// Virtual machines report odd caches (this project's VMs report a 480-508 MiB
// L3 per core, and associativity 0), so every figure is checked and a bad one
// is replaced by a fallback whose origin is recorded in `source`.
#include "tuning/topology.h"

#include <hwloc.h>

#include <algorithm>

namespace ridge {
namespace {

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * KiB;

// Largest per-core share of each level among shipping x86-64 cores (2024):
// L1d 64 KiB, L2 4 MiB (some Intel E-core clusters share 4 MiB), L3 per core
// 32 MiB (a 3D V-Cache Zen with 96 MiB over 8 cores is 12 MiB; 32 leaves room).
// A figure above these is a VM or firmware artifact.
constexpr int64_t kMaxShare[4] = {0, 64 * KiB, 4 * MiB, 32 * MiB};
constexpr int64_t kMinSize[4] = {0, 4 * KiB, 64 * KiB, 256 * KiB};

bool power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// Why `c` (one core's share of level `c.level`) cannot be used; empty when it can.
FixedText<64> why_unusable(const RawCache& c, int64_t share) {
    FixedText<64> why;
    if (c.size_bytes <= 0)
        why.set("size missing");
    else if (share < kMinSize[c.level])
        why.set("per-core size %lld B too small", (long long)share);
    else if (share > kMaxShare[c.level])
        why.set("per-core size %lld KiB larger than any real core's", (long long)(share / KiB));
    else if (c.ways <= 0)
        why.set("associativity %d", c.ways);
    else if (!power_of_two(c.line_bytes) || c.line_bytes < 16 || c.line_bytes > 256)
        why.set("line size %d", c.line_bytes);
    return why;
}

const RawCache* find_level(const RawCache* raw, size_t count, int level) {
    for (size_t i = 0; i < count; ++i)
        if (raw[i].level == level) return &raw[i];
    return nullptr;
}

void add_note(CacheTopology& topo, const FixedText<128>& note) {
    if (topo.note_count < CacheTopology::kMaxNotes) topo.notes[topo.note_count++] = note;
}

}  // namespace

CacheLevel fallback_l1() { return {1, 32 * KiB, 8, 64, 1, "fallback"}; }
CacheLevel fallback_l2() { return {2, 1 * MiB, 16, 64, 1, "fallback"}; }
CacheLevel fallback_l3() { return {3, 4 * MiB, 16, 64, 1, "fallback"}; }

CacheTopology checked_topology(const RawCache* raw, size_t count) {
    CacheTopology topo;
    CacheLevel* slots[4] = {nullptr, &topo.l1, &topo.l2, &topo.l3};
    const CacheLevel fallbacks[4] = {{}, fallback_l1(), fallback_l2(), fallback_l3()};
    for (int level = 1; level <= 3; ++level) {
        const RawCache* reported = find_level(raw, count, level);
        FixedText<64> why("not reported");
        if (reported != nullptr) {
            const int64_t share = reported->size_bytes / std::max(1, reported->cores_sharing);
            why = why_unusable(*reported, share);
            if (why.empty()) {
                *slots[level] = {level, share, reported->ways, reported->line_bytes, reported->cores_sharing,
                                 "hwloc"};
                continue;
            }
        }
        *slots[level] = fallbacks[level];
        slots[level]->source.set("fallback (hwloc: %s)", why.c_str());
        FixedText<128> note;
        note.set("L%d: hwloc %s; using %lld KiB %d-way", level, why.c_str(),
                 (long long)(fallbacks[level].size_bytes / KiB), fallbacks[level].ways);
        add_note(topo, note);
    }
    // Inclusion order: a level smaller than the one below it is wrong; the larger level
    // is the suspect (VMs inflate, they rarely shrink).
    for (int level = 2; level <= 3; ++level) {
        if (slots[level]->size_bytes < slots[level - 1]->size_bytes) {
            FixedText<128> note;
            note.set("L%d smaller than L%d; using the fallback", level, level - 1);
            add_note(topo, note);
            *slots[level] = fallbacks[level];
            slots[level]->size_bytes = std::max(slots[level]->size_bytes, slots[level - 1]->size_bytes * 2);
            slots[level]->source.set("fallback (smaller than L%d)", level - 1);
        }
    }
    return topo;
}

namespace {

// The data caches the first core sees in a loaded topology, innermost first: the
// walk up from its first PU. One function whatever hwloc loaded the topology from.
RawCaches first_core_caches(hwloc_topology_t topology) {
    RawCaches out;
    hwloc_obj_t pu = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, 0);
    for (hwloc_obj_t obj = pu ? pu->parent : nullptr; obj && out.count < RawCaches::kMaxLevels; obj = obj->parent) {
        if (!hwloc_obj_type_is_dcache(obj->type) || obj->attr == nullptr) continue;
        const auto& attr = obj->attr->cache;
        if (attr.type == HWLOC_OBJ_CACHE_INSTRUCTION) continue;
        RawCache& c = out.level[out.count++];
        c.level = static_cast<int>(attr.depth);
        c.size_bytes = static_cast<int64_t>(attr.size);
        c.ways = attr.associativity;  // -1 means fully associative, 0 unknown
        c.line_bytes = static_cast<int>(attr.linesize);
        // Cores, not PUs: SMT siblings share a core's caches without dividing them further.
        c.cores_sharing = std::max(1, hwloc_get_nbobjs_inside_cpuset_by_type(topology, obj->cpuset,
                                                                             HWLOC_OBJ_CORE));
    }
    return out;
}

// Points hwloc at a topology source before the load: hwloc_topology_set_xml or
// hwloc_topology_set_synthetic.
using SetSource = int (*)(hwloc_topology_t, const char*);

// Loads a topology and reads its caches. `set_source` null: this machine.
RawCaches load_and_read(SetSource set_source, const char* input) {
    RawCaches out;
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology) != 0) return out;
    // When hwloc refuses the input, the load must not run: it would discover this
    // machine instead, and a test would check the wrong caches without knowing it.
    const bool source_set = set_source == nullptr || set_source(topology, input) == 0;
    if (source_set && hwloc_topology_load(topology) == 0) out = first_core_caches(topology);
    hwloc_topology_destroy(topology);
    return out;
}

}  // namespace

RawCaches read_hwloc_caches() { return load_and_read(nullptr, nullptr); }

RawCaches read_hwloc_caches_from_xml(const char* path) {
    // Nothing to read: refused here, hwloc documents no meaning for a null path.
    if (path == nullptr) return RawCaches{};
    return load_and_read(hwloc_topology_set_xml, path);
}

RawCaches read_hwloc_caches_from_synthetic(const char* description) {
    if (description == nullptr) return RawCaches{};
    return load_and_read(hwloc_topology_set_synthetic, description);
}

const CacheTopology& machine_topology() {
    static const CacheTopology topo = [] {
        const RawCaches raw = read_hwloc_caches();
        return checked_topology(raw.level, size_t(raw.count));
    }();
    return topo;
}

}  // namespace ridge
