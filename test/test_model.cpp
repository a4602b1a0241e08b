// The cache topology checks (what hwloc says is believed only within bounds) and
// the Low et al. blocking model, against values worked out by hand.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatch/registry.h"
#include "gemm_check.h"
#include "tuning/model.h"
#include "tuning/topology.h"

using ridge::CacheLevel;
using ridge::CacheTopology;
using ridge::RawCache;

namespace {

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * KiB;

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The library keeps its explanations in fixed arrays (ridge::FixedText); the tests compare strings.
template <size_t N>
std::string text(const ridge::FixedText<N>& t) { return t.c_str(); }

CacheTopology checked(const std::vector<RawCache>& raw) { return ridge::checked_topology(raw.data(), raw.size()); }

// The figures of a level the checks accepted as hwloc gave them (per-core share).
void expect_from_hwloc(const CacheLevel& c, int level, int64_t share, int ways, int line, int sharing) {
    SCOPED_TRACE("L" + std::to_string(level));
    EXPECT_EQ(level, c.level);
    EXPECT_EQ(share, c.size_bytes);
    EXPECT_EQ(ways, c.ways);
    EXPECT_EQ(line, c.line_bytes);
    EXPECT_EQ(sharing, c.cores_sharing);
    EXPECT_EQ("hwloc", text(c.source));
}

// A level replaced by its documented fallback.
void expect_fallback(const CacheLevel& c, const CacheLevel& fallback) {
    SCOPED_TRACE("L" + std::to_string(fallback.level) + " source '" + text(c.source) + "'");
    EXPECT_EQ(fallback.level, c.level);
    EXPECT_EQ(fallback.size_bytes, c.size_bytes);
    EXPECT_EQ(fallback.ways, c.ways);
    EXPECT_EQ(fallback.line_bytes, c.line_bytes);
    EXPECT_TRUE(starts_with(text(c.source), "fallback")) << text(c.source);
}

// A note mentions level `level` ("L<level>").
bool has_note_for(const CacheTopology& t, int level) {
    for (int i = 0; i < t.note_count; ++i)
        if (starts_with(text(t.notes[i]), "L" + std::to_string(level))) return true;
    return false;
}

// A plausible modern core: 48 KiB 12-way L1d, 2 MiB 16-way L2, 32 MiB L3 over 8 cores.
std::vector<RawCache> sane_raw() {
    return {{1, 48 * KiB, 12, 64, 1}, {2, 2 * MiB, 16, 64, 1}, {3, 32 * MiB, 16, 64, 8}};
}

// --- Topology rules ---

TEST(Topology, SaneTopologyPassesUnchanged) {
    const CacheTopology t = checked(sane_raw());
    expect_from_hwloc(t.l1, 1, 48 * KiB, 12, 64, 1);
    expect_from_hwloc(t.l2, 2, 2 * MiB, 16, 64, 1);
    expect_from_hwloc(t.l3, 3, 4 * MiB, 16, 64, 8);  // 32 MiB / 8 cores
    EXPECT_EQ(0, t.note_count) << text(t.notes[0]);
}

TEST(Topology, OrderOfHwlocEntriesDoesNotMatter) {
    std::vector<RawCache> raw = sane_raw();
    std::swap(raw[0], raw[2]);
    const CacheTopology t = checked(raw);
    expect_from_hwloc(t.l1, 1, 48 * KiB, 12, 64, 1);
    expect_from_hwloc(t.l3, 3, 4 * MiB, 16, 64, 8);
}

// This project's VMs: L3 of 480 MiB shared by 2 cores (240 MiB each) or 508 MiB for
// one core, sometimes associativity 0. The L3 is replaced, L1 and L2 are kept.
TEST(Topology, ThisVmsL3IsRejected) {
    const std::vector<std::vector<RawCache>> vms = {
        {{1, 48 * KiB, 12, 64, 1}, {2, 2 * MiB, 16, 64, 1}, {3, 480 * MiB, 16, 64, 2}},
        {{1, 48 * KiB, 12, 64, 1}, {2, 2 * MiB, 16, 64, 1}, {3, 480 * MiB, 0, 64, 1}},
        {{1, 48 * KiB, 12, 64, 1}, {2, 2 * MiB, 16, 64, 1}, {3, 508 * MiB, 16, 64, 1}},
        {{1, 48 * KiB, 12, 64, 1}, {2, 2 * MiB, 16, 64, 1}, {3, 508 * MiB, 0, 64, 2}},
    };
    for (size_t v = 0; v < vms.size(); ++v) {
        SCOPED_TRACE("VM topology " + std::to_string(v));
        const CacheTopology t = checked(vms[v]);
        expect_from_hwloc(t.l1, 1, 48 * KiB, 12, 64, 1);
        expect_from_hwloc(t.l2, 2, 2 * MiB, 16, 64, 1);
        expect_fallback(t.l3, ridge::fallback_l3());
        ASSERT_EQ(1u, size_t(t.note_count));
        EXPECT_TRUE(has_note_for(t, 3)) << text(t.notes[0]);
    }
}

// Associativity 0 (unknown) everywhere: every level falls back, one note each.
TEST(Topology, AssociativityZeroEverywhere) {
    const CacheTopology t = checked(
        {{1, 48 * KiB, 0, 64, 1}, {2, 2 * MiB, 0, 64, 1}, {3, 480 * MiB, 0, 64, 2}});
    expect_fallback(t.l1, ridge::fallback_l1());
    expect_fallback(t.l2, ridge::fallback_l2());
    expect_fallback(t.l3, ridge::fallback_l3());
    EXPECT_EQ(3u, size_t(t.note_count));
    for (int level = 1; level <= 3; ++level) EXPECT_TRUE(has_note_for(t, level)) << "L" << level;
}

// ways <= 0 (hwloc: 0 unknown, -1 fully associative) is rejected at each level alone.
TEST(Topology, NonPositiveWaysRejected) {
    for (int level = 1; level <= 3; ++level)
        for (int ways : {0, -1}) {
            SCOPED_TRACE("L" + std::to_string(level) + " ways=" + std::to_string(ways));
            std::vector<RawCache> raw = sane_raw();
            raw[size_t(level - 1)].ways = ways;
            const CacheTopology t = checked(raw);
            const CacheLevel* levels[] = {&t.l1, &t.l2, &t.l3};
            const CacheLevel fallbacks[] = {ridge::fallback_l1(), ridge::fallback_l2(), ridge::fallback_l3()};
            expect_fallback(*levels[level - 1], fallbacks[level - 1]);
            ASSERT_EQ(1u, size_t(t.note_count));
            EXPECT_TRUE(has_note_for(t, level));
            for (int other = 1; other <= 3; ++other)
                if (other != level) {
                    EXPECT_EQ("hwloc", text(levels[other - 1]->source)) << "L" << other;
                }
        }
}

// Line sizes must be a power of two (in 16..256): zero, 48 and 96 are rejected, 128 kept.
TEST(Topology, LineSizeMustBePowerOfTwo) {
    for (int line : {0, 48, 96, -64}) {
        SCOPED_TRACE("line=" + std::to_string(line));
        std::vector<RawCache> raw = sane_raw();
        raw[0].line_bytes = line;
        const CacheTopology t = checked(raw);
        expect_fallback(t.l1, ridge::fallback_l1());
        EXPECT_TRUE(has_note_for(t, 1));
    }
    std::vector<RawCache> raw = sane_raw();
    for (RawCache& c : raw) c.line_bytes = 128;
    const CacheTopology t = checked(raw);
    EXPECT_EQ("hwloc", text(t.l1.source));
    EXPECT_EQ(128, t.l1.line_bytes);
    EXPECT_EQ(128, t.l3.line_bytes);
    EXPECT_TRUE((t.note_count == 0));
}

// Per-core shares above the largest of any real core are rejected; at the bound they pass.
TEST(Topology, PerCoreShareCaps) {
    struct Case {
        int level;
        int64_t size;
        int sharing;
        bool accepted;
    };
    const Case cases[] = {
        {1, 64 * KiB, 1, true},  {1, 128 * KiB, 1, false}, {1, 128 * KiB, 2, true},
        {2, 4 * MiB, 1, true},   {2, 8 * MiB, 1, false},   {2, 8 * MiB, 2, true},
        {3, 32 * MiB, 1, true},  {3, 33 * MiB, 1, false},  {3, 256 * MiB, 8, true},
        {3, 480 * MiB, 2, false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE("L" + std::to_string(c.level) + " " + std::to_string(c.size / KiB) + " KiB / " +
                     std::to_string(c.sharing));
        // Start from caches that leave room for the one under test in size order.
        std::vector<RawCache> raw = {{1, 32 * KiB, 8, 64, 1}, {2, 1 * MiB, 16, 64, 1}, {3, 32 * MiB, 16, 64, 1}};
        raw[size_t(c.level - 1)].size_bytes = c.size;
        raw[size_t(c.level - 1)].cores_sharing = c.sharing;
        const CacheTopology t = checked(raw);
        const CacheLevel* got = c.level == 1 ? &t.l1 : c.level == 2 ? &t.l2 : &t.l3;
        if (c.accepted) {
            EXPECT_EQ("hwloc", text(got->source));
            EXPECT_EQ(c.size / c.sharing, got->size_bytes);
            EXPECT_FALSE(has_note_for(t, c.level));
        } else {
            EXPECT_TRUE(starts_with(text(got->source), "fallback")) << text(got->source);
            EXPECT_TRUE(has_note_for(t, c.level));
        }
    }
}

// A size of zero, or a share too small to be a real cache, is rejected.
TEST(Topology, MissingOrTinySizeRejected) {
    for (int64_t size : {int64_t{0}, int64_t{-1}, 2 * KiB}) {
        SCOPED_TRACE("L1 size " + std::to_string(size));
        std::vector<RawCache> raw = sane_raw();
        raw[0].size_bytes = size;
        const CacheTopology t = checked(raw);
        expect_fallback(t.l1, ridge::fallback_l1());
        EXPECT_TRUE(has_note_for(t, 1));
    }
}

// Levels hwloc did not report fall back, each with a note; nothing at all gives all three.
TEST(Topology, MissingLevelsFallBack) {
    {
        const CacheTopology t = checked({});
        expect_fallback(t.l1, ridge::fallback_l1());
        expect_fallback(t.l2, ridge::fallback_l2());
        expect_fallback(t.l3, ridge::fallback_l3());
        EXPECT_EQ(3u, size_t(t.note_count));
    }
    {
        // No L3 (many small cores), and an L4 that must be ignored.
        std::vector<RawCache> raw = {sane_raw()[0], sane_raw()[1], {4, 128 * MiB, 16, 64, 1}};
        const CacheTopology t = checked(raw);
        expect_from_hwloc(t.l1, 1, 48 * KiB, 12, 64, 1);
        expect_from_hwloc(t.l2, 2, 2 * MiB, 16, 64, 1);
        expect_fallback(t.l3, ridge::fallback_l3());
        ASSERT_EQ(1u, size_t(t.note_count));
        EXPECT_TRUE(has_note_for(t, 3));
    }
    {
        // No L2.
        std::vector<RawCache> raw = {sane_raw()[0], sane_raw()[2]};
        const CacheTopology t = checked(raw);
        expect_fallback(t.l2, ridge::fallback_l2());
        EXPECT_EQ("hwloc", text(t.l1.source));
        EXPECT_EQ("hwloc", text(t.l3.source));
        EXPECT_TRUE(has_note_for(t, 2));
    }
}

// An L2 larger than this core's L3 share: the L3 (the level that is smaller than
// the one below it) is not believed; its replacement is at least twice the L2.
TEST(Topology, L2LargerThanL3) {
    const CacheTopology t = checked(
        {{1, 48 * KiB, 12, 64, 1}, {2, 4 * MiB, 16, 64, 1}, {3, 16 * MiB, 16, 64, 8}});  // L3 share 2 MiB
    expect_from_hwloc(t.l2, 2, 4 * MiB, 16, 64, 1);
    EXPECT_TRUE(starts_with(text(t.l3.source), "fallback")) << text(t.l3.source);
    EXPECT_GE(t.l3.size_bytes, 2 * t.l2.size_bytes);
    EXPECT_EQ(ridge::fallback_l3().ways, t.l3.ways);
    EXPECT_TRUE(has_note_for(t, 3));
}

// Whatever hwloc says, the result is usable: every source is "hwloc" or "fallback...",
// ways and line sizes positive, sizes increase from L1 to L3.
TEST(Topology, RandomGarbageAlwaysGivesAUsableTopology) {
    const uint32_t seed = ridge_test::test_seed();
    SCOPED_TRACE(ridge_test::seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> level(0, 4), ways(-1, 24), line_pick(0, 5), sharing(0, 16), count(0, 5);
    std::uniform_int_distribution<int64_t> kib(0, 600 * 1024);
    const int lines[] = {0, 32, 48, 64, 128, 100};
    for (int iter = 0; iter < 2000; ++iter) {
        std::vector<RawCache> raw;
        for (int i = count(rng); i > 0; --i)
            raw.push_back({level(rng), kib(rng) * KiB, ways(rng), lines[line_pick(rng)], sharing(rng)});
        const CacheTopology t = checked(raw);
        const CacheLevel* levels[] = {&t.l1, &t.l2, &t.l3};
        for (int l = 0; l < 3; ++l) {
            const CacheLevel& c = *levels[l];
            ASSERT_TRUE(text(c.source) == "hwloc" || starts_with(text(c.source), "fallback")) << text(c.source);
            ASSERT_EQ(l + 1, c.level);
            ASSERT_GT(c.ways, 0);
            ASSERT_GT(c.line_bytes, 0);
            ASSERT_EQ(0, c.line_bytes & (c.line_bytes - 1));
            ASSERT_GT(c.size_bytes, 0);
            if (l > 0) {
                ASSERT_GE(c.size_bytes, levels[l - 1]->size_bytes) << "iteration " << iter;
            }
        }
        // And the model gives legal blocks on it.
        const ridge::BlockingParams bp = ridge::blocking_from_model(t, 16, 6, 4);
        ASSERT_GT(bp.KC, 0);
        ASSERT_EQ(0, bp.KC % 8);
        ASSERT_EQ(0, bp.MC % 16);
        ASSERT_EQ(0, bp.NC % 6);
        ASSERT_GT(bp.MC, 0);
        ASSERT_GT(bp.NC, 0);
    }
}

// The machine's own topology, as the library uses it, obeys the same rules.
TEST(Topology, MachineTopologyIsUsable) {
    const CacheTopology& t = ridge::machine_topology();
    const CacheLevel* levels[] = {&t.l1, &t.l2, &t.l3};
    const int64_t caps[] = {64 * KiB, 4 * MiB, 32 * MiB};
    for (int l = 0; l < 3; ++l) {
        const CacheLevel& c = *levels[l];
        SCOPED_TRACE("L" + std::to_string(l + 1) + " " + text(c.source));
        EXPECT_TRUE(text(c.source) == "hwloc" || starts_with(text(c.source), "fallback"));
        EXPECT_GT(c.ways, 0);
        EXPECT_EQ(0, c.line_bytes & (c.line_bytes - 1));
        EXPECT_LE(c.size_bytes, text(c.source) == "hwloc" ? caps[l] : INT64_MAX);
        if (l > 0) {
            EXPECT_GE(c.size_bytes, levels[l - 1]->size_bytes);
        }
    }
}

// --- The model ---

CacheTopology topology_of(CacheLevel l1, CacheLevel l2, CacheLevel l3) {
    CacheTopology t;
    t.l1 = l1, t.l2 = l2, t.l3 = l3;
    return t;
}

// Worked by hand from Low et al. (TOMS 2016): a cache of W ways, S sets, L-byte
// lines is W "ways" of S*L bytes.
//   L1 48 KiB 12-way 64 B: S = 48 KiB / (12*64) = 64, way = 4 KiB. MR=32, NR=12:
//     C_Ar = floor((12-1) / (1 + 12/32)) = floor(8.0) = 8,
//     KC = 8 * 4096 / (32 * 4) = 256.
//   L2 2 MiB 16-way: way = 128 KiB. C_Br = ceil(256*12*4 / 131072) = 1,
//     C_Ac = 16 - 1 - 1 = 14, at most half of the 16: 8, MC = 8 * 131072 / (256*4) = 1024
//     (a multiple of 32).
//   L3 4 MiB 16-way: way = 256 KiB. C_Ac = ceil(1024*256*4 / 262144) = 4,
//     C_Bc = 16 - 1 - 4 = 11, NC = 11 * 262144 / (256*4) = 2816, down to a multiple of 12: 2808.
TEST(Model, Avx512KernelOnA48KiBL1) {
    const CacheTopology t = topology_of({1, 48 * KiB, 12, 64, 1, "test"}, {2, 2 * MiB, 16, 64, 1, "test"},
                                        {3, 4 * MiB, 16, 64, 1, "test"});
    const ridge::BlockingParams bp = ridge::blocking_from_model(t, 32, 12, 4);
    EXPECT_EQ(32, bp.MR);
    EXPECT_EQ(12, bp.NR);
    EXPECT_EQ(256, bp.KC);
    EXPECT_EQ(1024, bp.MC);
    EXPECT_EQ(2808, bp.NC);
}

// The AMX bf16 kernel (MR = NR = 32, 2-byte elements) on the caches above,
// KC raised to its registry floor of 1024:
//   L1: C_Ar = floor(11 / (1 + 32/32)) = 5, KC = 5 * 4096 / (32*2) = 320 -> 1024.
//   L2: C_Br = ceil(1024*32*2 / 131072) = 1, all but two ways 14, at most half
//     of L2: 8 ways, MC = 8 * 131072 / (1024*2) = 512.
//   L3: C_Ac = ceil(512*1024*2 / 262144) = 4, C_Bc = 11, NC = 11 * 262144 / 2048 = 1408.
// Without the floor the L1 model stands, and MC half of L2 as well:
//   KC 320, C_Br = ceil(320*32*2 / 131072) = 1, MC = 8 * 131072 / 640 = 1638.4 -> 1632.
TEST(Model, AmxKernelWithKcRaisedToItsFloor) {
    const CacheTopology t = topology_of({1, 48 * KiB, 12, 64, 1, "test"}, {2, 2 * MiB, 16, 64, 1, "test"},
                                        {3, 4 * MiB, 16, 64, 1, "test"});
    const ridge::BlockingParams raised = ridge::blocking_from_model(t, 32, 32, 2, 1024);
    EXPECT_EQ(1024, raised.KC);
    EXPECT_EQ(512, raised.MC);
    EXPECT_EQ(1408, raised.NC);
    const ridge::BlockingParams model = ridge::blocking_from_model(t, 32, 32, 2);
    EXPECT_EQ(320, model.KC);
    EXPECT_EQ(1632, model.MC);
}

// The fallback topology with the AVX2 kernel (MR=16, NR=6):
//   L1 32 KiB 8-way: way = 4 KiB. C_Ar = floor(7 / (1 + 6/16)) = floor(5.09) = 5,
//     KC = 5 * 4096 / (16*4) = 320.
//   L2 1 MiB 16-way: way = 64 KiB. C_Br = ceil(320*6*4 / 65536) = 1, C_Ac = 14, at most
//     half of the 16: 8, MC = 8 * 65536 / (320*4) = 409.6 -> 409, down to a multiple of 16: 400.
//   L3 4 MiB 16-way: way = 256 KiB. C_Ac = ceil(400*320*4 / 262144) = ceil(1.95) = 2,
//     C_Bc = 16 - 1 - 2 = 13, NC = 13 * 262144 / (320*4) = 2662.4 -> 2662, multiple of 6: 2658.
TEST(Model, Avx2KernelOnFallbackCaches) {
    const CacheTopology t = topology_of(ridge::fallback_l1(), ridge::fallback_l2(), ridge::fallback_l3());
    const ridge::BlockingParams bp = ridge::blocking_from_model(t, 16, 6, 4);
    EXPECT_EQ(320, bp.KC);
    EXPECT_EQ(400, bp.MC);
    EXPECT_EQ(2658, bp.NC);
}

// The portable kernel (MR=8, NR=4) on the same fallback caches:
//   C_Ar = floor(7 / (1 + 4/8)) = floor(4.67) = 4, KC = 4 * 4096 / (8*4) = 512.
//   C_Br = ceil(512*4*4 / 65536) = 1, C_Ac = 14, half of the 16: 8, MC = 8 * 65536 / (512*4) = 256.
//   C_Ac(L3) = ceil(256*512*4 / 262144) = 2, C_Bc = 13,
//   NC = 13 * 262144 / (512*4) = 1664 (a multiple of 4).
TEST(Model, RefKernelOnFallbackCaches) {
    const CacheTopology t = topology_of(ridge::fallback_l1(), ridge::fallback_l2(), ridge::fallback_l3());
    const ridge::BlockingParams bp = ridge::blocking_from_model(t, 8, 4, 4);
    EXPECT_EQ(512, bp.KC);
    EXPECT_EQ(256, bp.MC);
    EXPECT_EQ(1664, bp.NC);
}

// This VM as hwloc reports it (L3 rejected, the 4 MiB 16-way fallback in its place)
// gives exactly the first hand-worked case.
TEST(Model, ThisVmThroughTheChecks) {
    const CacheTopology t = checked(
        {{1, 48 * KiB, 12, 64, 1}, {2, 2 * MiB, 16, 64, 1}, {3, 480 * MiB, 16, 64, 2}});
    const ridge::BlockingParams bp = ridge::blocking_from_model(t, 32, 12, 4);
    EXPECT_EQ(256, bp.KC);
    EXPECT_EQ(1024, bp.MC);
    EXPECT_EQ(2808, bp.NC);
}

// The section 4 rule: latency x ports accumulators.
TEST(Model, MinimumAccumulators) {
    static_assert(ridge::min_accumulators(4, 2) == 8);
    EXPECT_EQ(10, ridge::min_accumulators(5, 2));
    // Every registered kernel keeps at least 4-cycle x 2-port FMAs busy.
    for (const ridge::GemmKernel& k : ridge::gemm_kernels())
        if (k.isa != ridge::Isa::ref) {
            EXPECT_GE(k.MR * k.NR / k.lanes, ridge::min_accumulators(4, 2)) << k.name;
        }
}

// The blocking the library runs with: legal for the loops around the kernel.
TEST(Model, RuntimeBlockingInvariants) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    ASSERT_NE(nullptr, cfg.gemm(ridge::Dtype::f32).kernel);
    const ridge::BlockingParams& bp = cfg.gemm(ridge::Dtype::f32).blocking;
    SCOPED_TRACE(std::string(cfg.gemm(ridge::Dtype::f32).kernel->name) + " KC=" + std::to_string(bp.KC) +
                 " MC=" + std::to_string(bp.MC) + " NC=" + std::to_string(bp.NC));
    EXPECT_EQ(cfg.gemm(ridge::Dtype::f32).kernel->MR, bp.MR);
    EXPECT_EQ(cfg.gemm(ridge::Dtype::f32).kernel->NR, bp.NR);
    EXPECT_GT(bp.KC, 0);
    EXPECT_GT(bp.MC, 0);
    EXPECT_GT(bp.NC, 0);
    EXPECT_EQ(0, bp.KC % 8);
    EXPECT_EQ(0, bp.MC % bp.MR);
    EXPECT_EQ(0, bp.NC % bp.NR);
    // And it is the model's answer for this machine, not something else, unless a
    // tuned profile (ridge-tune, ~/.config/ridge/) supplied it: test_profile_use
    // covers that side.
    if (cfg.gemm(ridge::Dtype::f32).blocking_from_profile) {
        std::printf("blocking from the profile (%s): not compared with the model\n", cfg.profile_note.c_str());
        return;
    }
    const ridge::BlockingParams want =
        ridge::blocking_from_model(ridge::machine_topology(), bp.MR, bp.NR, sizeof(float));
    EXPECT_EQ(want.KC, bp.KC);
    EXPECT_EQ(want.MC, bp.MC);
    EXPECT_EQ(want.NC, bp.NC);
}

// The invariants for every kernel of the registry on a spread of real cache shapes.
TEST(Model, InvariantsForEveryKernelAndCommonCaches) {
    const std::vector<std::vector<RawCache>> machines = {
        {{1, 32 * KiB, 8, 64, 1}, {2, 256 * KiB, 4, 64, 1}, {3, 8 * MiB, 16, 64, 4}},    // Haswell
        {{1, 48 * KiB, 12, 64, 1}, {2, 1280 * KiB, 20, 64, 1}, {3, 24 * MiB, 12, 64, 8}},  // Alder Lake P
        {{1, 32 * KiB, 8, 64, 1}, {2, 1 * MiB, 8, 64, 1}, {3, 32 * MiB, 16, 64, 8}},     // Zen 4
        {{1, 48 * KiB, 12, 64, 1}, {2, 2 * MiB, 16, 64, 1}, {3, 480 * MiB, 0, 64, 2}},   // this VM
        {},                                                                              // nothing known
    };
    for (size_t i = 0; i < machines.size(); ++i)
        for (const ridge::GemmKernel& k : ridge::gemm_kernels()) {
            SCOPED_TRACE("machine " + std::to_string(i) + " " + k.name);
            const ridge::BlockingParams bp =
                ridge::blocking_from_model(checked(machines[i]), k.MR, k.NR, 4);
            EXPECT_GT(bp.KC, 0);
            EXPECT_EQ(0, bp.KC % 8);
            EXPECT_GT(bp.MC, 0);
            EXPECT_EQ(0, bp.MC % k.MR);
            EXPECT_GT(bp.NC, 0);
            EXPECT_EQ(0, bp.NC % k.NR);
        }
}

}  // namespace
