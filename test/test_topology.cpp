// The path from hwloc to the caches the blocking model uses, end to end: topologies
// hwloc loads from XML files (test/topology/, one machine each) and from synthetic
// descriptions, read into RawCaches by the library's own walk, then judged by
// checked_topology. test_model feeds checked_topology hand-built arrays; this suite
// proves hwloc hands the same figures to it. Every expectation is exact: sizes,
// ways, line sizes, cores sharing, the per-core share, each source and each note.
#include <gtest/gtest.h>
#include <hwloc.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tuning/topology.h"

using ridge::CacheLevel;
using ridge::CacheTopology;
using ridge::RawCache;
using ridge::RawCaches;

namespace {

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * KiB;

// The library keeps its explanations in fixed arrays (ridge::FixedText); the tests compare strings.
template <size_t N>
std::string text(const ridge::FixedText<N>& t) { return t.c_str(); }

// A topology file of test/topology/ (RIDGE_TOPOLOGY_DIR comes from test/CMakeLists.txt).
std::string topology_file(const char* name) { return std::string(RIDGE_TOPOLOGY_DIR) + "/" + name; }

RawCaches from_xml(const char* name) { return ridge::read_hwloc_caches_from_xml(topology_file(name).c_str()); }

CacheTopology checked(const RawCaches& raw) { return ridge::checked_topology(raw.level, size_t(raw.count)); }

// Entry `i` of what hwloc reported, every field.
void expect_raw(const RawCaches& raw, int i, int level, int64_t size, int ways, int line, int sharing) {
    SCOPED_TRACE("raw entry " + std::to_string(i));
    ASSERT_LT(i, raw.count);
    const RawCache& c = raw.level[i];
    EXPECT_EQ(level, c.level);
    EXPECT_EQ(size, c.size_bytes);
    EXPECT_EQ(ways, c.ways);
    EXPECT_EQ(line, c.line_bytes);
    EXPECT_EQ(sharing, c.cores_sharing);
}

// A level believed as hwloc gave it; `share` is one core's part of the cache.
void expect_from_hwloc(const CacheLevel& c, int level, int64_t share, int ways, int line, int sharing) {
    SCOPED_TRACE("L" + std::to_string(level));
    EXPECT_EQ(level, c.level);
    EXPECT_EQ(share, c.size_bytes);
    EXPECT_EQ(ways, c.ways);
    EXPECT_EQ(line, c.line_bytes);
    EXPECT_EQ(sharing, c.cores_sharing);
    EXPECT_EQ("hwloc", text(c.source));
}

// A level replaced by `fallback` (every figure of it), with exactly this source text.
void expect_fallback(const CacheLevel& c, const CacheLevel& fallback, const std::string& source) {
    SCOPED_TRACE("L" + std::to_string(fallback.level));
    EXPECT_EQ(fallback.level, c.level);
    EXPECT_EQ(fallback.size_bytes, c.size_bytes);
    EXPECT_EQ(fallback.ways, c.ways);
    EXPECT_EQ(fallback.line_bytes, c.line_bytes);
    EXPECT_EQ(fallback.cores_sharing, c.cores_sharing);
    EXPECT_EQ(source, text(c.source));
}

// The notes, exactly and in order.
void expect_notes(const CacheTopology& t, const std::vector<std::string>& notes) {
    ASSERT_EQ(notes.size(), size_t(t.note_count));
    for (size_t i = 0; i < notes.size(); ++i) EXPECT_EQ(notes[i], text(t.notes[i])) << "note " << i;
}

// --- XML topologies ---

// This VM: 480 MiB of L3 for 2 cores is 240 MiB a core, above any real core's 32 MiB;
// the L3 falls back, L1d and L2 are believed. The L1i hwloc reports is not read.
TEST(TopologyXml, ThisVm480MiBL3) {
    const RawCaches raw = from_xml("vm_l3_480mib.xml");
    ASSERT_EQ(3, raw.count);
    expect_raw(raw, 0, 1, 48 * KiB, 12, 64, 1);
    expect_raw(raw, 1, 2, 2 * MiB, 16, 64, 1);
    expect_raw(raw, 2, 3, 480 * MiB, 16, 64, 2);
    const CacheTopology t = checked(raw);
    expect_from_hwloc(t.l1, 1, 48 * KiB, 12, 64, 1);
    expect_from_hwloc(t.l2, 2, 2 * MiB, 16, 64, 1);
    // 245760 KiB = 480 MiB / 2 cores: the share, not the whole cache, is what is judged.
    expect_fallback(t.l3, ridge::fallback_l3(),
                    "fallback (hwloc: per-core size 245760 KiB larger than any real core's)");
    expect_notes(t, {"L3: hwloc per-core size 245760 KiB larger than any real core's; using 4096 KiB 16-way"});
}

// The other VM report: 508 MiB, associativity 0. Both are wrong; the note names the
// size (the first rule checked), with the share 508 MiB / 2 = 260096 KiB.
TEST(TopologyXml, ThisVm508MiBL3AssociativityZero) {
    const RawCaches raw = from_xml("vm_l3_508mib_assoc0.xml");
    ASSERT_EQ(3, raw.count);
    expect_raw(raw, 0, 1, 48 * KiB, 12, 64, 1);
    expect_raw(raw, 1, 2, 2 * MiB, 16, 64, 1);
    expect_raw(raw, 2, 3, 508 * MiB, 0, 64, 2);
    const CacheTopology t = checked(raw);
    expect_from_hwloc(t.l1, 1, 48 * KiB, 12, 64, 1);
    expect_from_hwloc(t.l2, 2, 2 * MiB, 16, 64, 1);
    expect_fallback(t.l3, ridge::fallback_l3(),
                    "fallback (hwloc: per-core size 260096 KiB larger than any real core's)");
    expect_notes(t, {"L3: hwloc per-core size 260096 KiB larger than any real core's; using 4096 KiB 16-way"});
}

// L2 4 MiB a core under an L3 of 2 MiB for 2 cores: the L3 passes its own checks
// but breaks the order, so it falls back, grown to twice the L2 (8 MiB > 4 MiB).
TEST(TopologyXml, L2LargerThanL3) {
    const RawCaches raw = from_xml("l2_larger_than_l3.xml");
    ASSERT_EQ(3, raw.count);
    expect_raw(raw, 0, 1, 48 * KiB, 12, 64, 1);
    expect_raw(raw, 1, 2, 4 * MiB, 16, 64, 1);
    expect_raw(raw, 2, 3, 2 * MiB, 16, 64, 2);
    const CacheTopology t = checked(raw);
    expect_from_hwloc(t.l1, 1, 48 * KiB, 12, 64, 1);
    expect_from_hwloc(t.l2, 2, 4 * MiB, 16, 64, 1);
    CacheLevel grown = ridge::fallback_l3();
    grown.size_bytes = 8 * MiB;
    expect_fallback(t.l3, grown, "fallback (smaller than L2)");
    expect_notes(t, {"L3 smaller than L2; using the fallback"});
    // Alone, the same L3 is believed, at 1 MiB a core: only the order condemned it.
    const CacheTopology alone = ridge::checked_topology(&raw.level[2], 1);
    expect_from_hwloc(alone.l3, 3, 1 * MiB, 16, 64, 2);
}

// A line size of 0 on the L1d only: that level falls back, the others are believed
// (the L3 at 12 MiB / 2 cores = 6 MiB a core).
TEST(TopologyXml, ZeroLineSize) {
    const RawCaches raw = from_xml("zero_line_size.xml");
    ASSERT_EQ(3, raw.count);
    expect_raw(raw, 0, 1, 48 * KiB, 12, 0, 1);
    expect_raw(raw, 1, 2, 2 * MiB, 16, 64, 1);
    expect_raw(raw, 2, 3, 12 * MiB, 12, 64, 2);
    const CacheTopology t = checked(raw);
    expect_fallback(t.l1, ridge::fallback_l1(), "fallback (hwloc: line size 0)");
    expect_from_hwloc(t.l2, 2, 2 * MiB, 16, 64, 1);
    expect_from_hwloc(t.l3, 3, 6 * MiB, 12, 64, 2);
    expect_notes(t, {"L1: hwloc line size 0; using 32 KiB 8-way"});
}

// No L3: two levels read, the L3 is the fallback, which still sits above the L2.
TEST(TopologyXml, NoL3) {
    const RawCaches raw = from_xml("no_l3.xml");
    ASSERT_EQ(2, raw.count);
    expect_raw(raw, 0, 1, 48 * KiB, 12, 64, 1);
    expect_raw(raw, 1, 2, 2 * MiB, 16, 64, 1);
    const CacheTopology t = checked(raw);
    expect_from_hwloc(t.l1, 1, 48 * KiB, 12, 64, 1);
    expect_from_hwloc(t.l2, 2, 2 * MiB, 16, 64, 1);
    expect_fallback(t.l3, ridge::fallback_l3(), "fallback (hwloc: not reported)");
    expect_notes(t, {"L3: hwloc not reported; using 4096 KiB 16-way"});
}

// No caches at all: nothing read, every level the fallback, one note each.
TEST(TopologyXml, NoCaches) {
    const RawCaches raw = from_xml("no_caches.xml");
    EXPECT_EQ(0, raw.count);
    const CacheTopology t = checked(raw);
    expect_fallback(t.l1, ridge::fallback_l1(), "fallback (hwloc: not reported)");
    expect_fallback(t.l2, ridge::fallback_l2(), "fallback (hwloc: not reported)");
    expect_fallback(t.l3, ridge::fallback_l3(), "fallback (hwloc: not reported)");
    expect_notes(t, {"L1: hwloc not reported; using 32 KiB 8-way", "L2: hwloc not reported; using 1024 KiB 16-way",
                     "L3: hwloc not reported; using 4096 KiB 16-way"});
}

// A sane machine (one Zen 4 CCD): everything believed, the L3 at 32 MiB / 8 cores.
TEST(TopologyXml, SaneZen4LikeAccepted) {
    const RawCaches raw = from_xml("zen4_like.xml");
    ASSERT_EQ(3, raw.count);
    expect_raw(raw, 0, 1, 32 * KiB, 8, 64, 1);
    expect_raw(raw, 1, 2, 1 * MiB, 8, 64, 1);
    expect_raw(raw, 2, 3, 32 * MiB, 16, 64, 8);
    const CacheTopology t = checked(raw);
    expect_from_hwloc(t.l1, 1, 32 * KiB, 8, 64, 1);
    expect_from_hwloc(t.l2, 2, 1 * MiB, 8, 64, 1);
    expect_from_hwloc(t.l3, 3, 4 * MiB, 16, 64, 8);
    expect_notes(t, {});
}

// Input hwloc refuses gives no caches: not the caches of the machine the test runs
// on, which is what hwloc_topology_load would discover after a refused source. The
// first two are refused when the source is set (unreadable, not XML), the third at
// the load (well-formed, but no NUMA node). On a machine whose own hwloc reports no
// caches these could not tell the two apart; this one reports three levels.
TEST(TopologyXml, RefusedInputReadsNothing) {
    EXPECT_EQ(0, ridge::read_hwloc_caches_from_xml(topology_file("does_not_exist.xml").c_str()).count);
    const std::string not_xml = ::testing::TempDir() + "ridge_not_xml_" + std::to_string(getpid()) + ".xml";
    std::FILE* f = std::fopen(not_xml.c_str(), "w");
    ASSERT_NE(nullptr, f);
    std::fputs("<topology version=\"2.0\"", f);  // cut short
    std::fclose(f);
    EXPECT_EQ(0, ridge::read_hwloc_caches_from_xml(not_xml.c_str()).count);
    std::remove(not_xml.c_str());
    EXPECT_EQ(0, from_xml("no_numa_node.xml").count);
    EXPECT_EQ(0, ridge::read_hwloc_caches_from_xml(nullptr).count);
}

// This machine exported by hwloc and read back from the XML gives what the native
// read gives, entry by entry: the XML path is the same walk as the library's own.
TEST(TopologyXml, MachineExportReadsBackTheSame) {
    const RawCaches native = ridge::read_hwloc_caches();
    hwloc_topology_t topology;
    ASSERT_EQ(0, hwloc_topology_init(&topology));
    ASSERT_EQ(0, hwloc_topology_load(topology));
    const std::string path = ::testing::TempDir() + "ridge_machine_" + std::to_string(getpid()) + ".xml";
    const int exported = hwloc_topology_export_xml(topology, path.c_str(), 0);
    hwloc_topology_destroy(topology);
    ASSERT_EQ(0, exported);
    const RawCaches back = ridge::read_hwloc_caches_from_xml(path.c_str());
    std::remove(path.c_str());
    ASSERT_EQ(native.count, back.count);
    for (int i = 0; i < native.count; ++i) {
        const RawCache& n = native.level[i];
        expect_raw(back, i, n.level, n.size_bytes, n.ways, n.line_bytes, n.cores_sharing);
    }
}

// --- Synthetic topologies ---

// hwloc's synthetic caches have associativity 0 and 64-byte lines whatever the
// description says (it accepts only size=), so the rules believe none of them:
// a synthetic Zen 4 CCD falls back at every level, for its associativity alone.
TEST(TopologySynthetic, AssociativityZeroEverywhere) {
    const RawCaches raw = ridge::read_hwloc_caches_from_synthetic(
        "Package:1 L3Cache:1(size=32MiB) L2Cache:8(size=1MiB) L1dCache:1(size=32KiB) Core:1 PU:1");
    ASSERT_EQ(3, raw.count);
    expect_raw(raw, 0, 1, 32 * KiB, 0, 64, 1);
    expect_raw(raw, 1, 2, 1 * MiB, 0, 64, 1);
    expect_raw(raw, 2, 3, 32 * MiB, 0, 64, 8);
    const CacheTopology t = checked(raw);
    expect_fallback(t.l1, ridge::fallback_l1(), "fallback (hwloc: associativity 0)");
    expect_fallback(t.l2, ridge::fallback_l2(), "fallback (hwloc: associativity 0)");
    expect_fallback(t.l3, ridge::fallback_l3(), "fallback (hwloc: associativity 0)");
    expect_notes(t, {"L1: hwloc associativity 0; using 32 KiB 8-way",
                     "L2: hwloc associativity 0; using 1024 KiB 16-way",
                     "L3: hwloc associativity 0; using 4096 KiB 16-way"});
    // With the ways a real OS reports (as in zen4_like.xml), the same figures are believed.
    RawCaches with_ways = raw;
    with_ways.level[0].ways = 8;
    with_ways.level[1].ways = 8;
    with_ways.level[2].ways = 16;
    const CacheTopology believed = checked(with_ways);
    expect_from_hwloc(believed.l1, 1, 32 * KiB, 8, 64, 1);
    expect_from_hwloc(believed.l2, 2, 1 * MiB, 8, 64, 1);
    expect_from_hwloc(believed.l3, 3, 4 * MiB, 16, 64, 8);
    expect_notes(believed, {});
}

// Two PUs a core: cores, not PUs, divide a cache. 4 cores (8 PUs) share the L3,
// so a core's share of 16 MiB is 4 MiB (2 MiB if PUs were counted), and the L2 is
// one core's whole (1 MiB if PUs were counted).
TEST(TopologySynthetic, SmtSiblingsDoNotDivideCaches) {
    const RawCaches raw = ridge::read_hwloc_caches_from_synthetic(
        "Package:1 L3Cache:1(size=16MiB) L2Cache:4(size=2MiB) L1dCache:1(size=48KiB) Core:1 PU:2");
    ASSERT_EQ(3, raw.count);
    expect_raw(raw, 0, 1, 48 * KiB, 0, 64, 1);
    expect_raw(raw, 1, 2, 2 * MiB, 0, 64, 1);
    expect_raw(raw, 2, 3, 16 * MiB, 0, 64, 4);
    RawCaches with_ways = raw;  // synthetic ways are 0: give them some, to see the shares
    for (int i = 0; i < with_ways.count; ++i) with_ways.level[i].ways = 16;
    const CacheTopology t = checked(with_ways);
    expect_from_hwloc(t.l1, 1, 48 * KiB, 16, 64, 1);
    expect_from_hwloc(t.l2, 2, 2 * MiB, 16, 64, 1);
    expect_from_hwloc(t.l3, 3, 4 * MiB, 16, 64, 4);
}

// hwloc reads "MB" and "kB"/"KB" as powers of 10, "MiB" and "KiB" as powers of 2:
// size=2MB is 2,000,000 bytes, not 2 MiB.
TEST(TopologySynthetic, DecimalUnits) {
    const RawCaches raw =
        ridge::read_hwloc_caches_from_synthetic("L2Cache:1(size=2MB) L1dCache:1(size=48kB) Core:1 PU:1");
    ASSERT_EQ(2, raw.count);
    expect_raw(raw, 0, 1, 48000, 0, 64, 1);
    expect_raw(raw, 1, 2, 2000000, 0, 64, 1);
}

// A size omitted, or 0, is made up by hwloc (32 KiB for an L1, 4 MiB for an L2,
// 16 MiB for an L3): a synthetic topology cannot show the rules a missing size.
TEST(TopologySynthetic, SizesOmittedOrZeroAreMadeUp) {
    const RawCaches raw =
        ridge::read_hwloc_caches_from_synthetic("Package:1 L3Cache:1 L2Cache:2(size=0) L1dCache:1 Core:1 PU:1");
    ASSERT_EQ(3, raw.count);
    expect_raw(raw, 0, 1, 32 * KiB, 0, 64, 1);
    expect_raw(raw, 1, 2, 4 * MiB, 0, 64, 1);
    expect_raw(raw, 2, 3, 16 * MiB, 0, 64, 2);
}

// Missing levels: no L3, then no caches at all.
TEST(TopologySynthetic, MissingLevels) {
    const RawCaches no_l3 =
        ridge::read_hwloc_caches_from_synthetic("Package:1 L2Cache:2(size=2MiB) L1dCache:1(size=48KiB) Core:1 PU:1");
    ASSERT_EQ(2, no_l3.count);
    expect_raw(no_l3, 0, 1, 48 * KiB, 0, 64, 1);
    expect_raw(no_l3, 1, 2, 2 * MiB, 0, 64, 1);
    const CacheTopology t = checked(no_l3);
    expect_fallback(t.l3, ridge::fallback_l3(), "fallback (hwloc: not reported)");
    EXPECT_EQ(0, ridge::read_hwloc_caches_from_synthetic("Package:1 Core:2 PU:1").count);
}

// Descriptions hwloc refuses give no caches (not this machine's: see RefusedInputReadsNothing).
TEST(TopologySynthetic, RefusedDescriptionsReadNothing) {
    for (const char* description : {"bogus", "", "Core:0 PU:1", "L2Cache:1(size=1MiB,linesize=128) Core:1 PU:1"}) {
        EXPECT_EQ(0, ridge::read_hwloc_caches_from_synthetic(description).count) << "'" << description << "'";
    }
    EXPECT_EQ(0, ridge::read_hwloc_caches_from_synthetic(nullptr).count);
}

}  // namespace
