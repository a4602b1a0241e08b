// ridge-tune's rule for a crossover search cut short (tune/cut_short.h), and
// the built-in figures it compares against; the AVX2 kernel it searches
// besides the defaults (tune/asked_kernel.h); where a bandwidth sweep's
// plateau ends (tune/knee.h); where a timed problem's matrices start
// (tune/timing.h: Placement).
#include <gtest/gtest.h>

#include "a_in_place.h"
#include "asked_kernel.h"
#include "cut_short.h"
#include "knee.h"
#include "rule_verdict.h"
#include "timing.h"
#include "dispatch/cpu_features.h"
#include "dispatch/dispatch.h"

namespace {

using ridge_tune::figure_when_cut_short;

TEST(CutShort, AMeasuredRunBeyondTheLibrarysLimitIsKept) {
    for (bool fell_short : {false, true}) {
        EXPECT_EQ(figure_when_cut_short(96, 64, fell_short), 96);
        EXPECT_EQ(figure_when_cut_short(65, 64, fell_short), 65);
        EXPECT_EQ(figure_when_cut_short(256.0 * 256 * 256, 128.0 * 128 * 128, fell_short), 256.0 * 256 * 256);
    }
}

TEST(CutShort, AMeasuredRunUpToTheLibrarysLimitIsLeftOut) {
    // Only a lower bound was measured: it must not lower the library's figure.
    EXPECT_EQ(figure_when_cut_short(64, 64, false), 0);
    EXPECT_EQ(figure_when_cut_short(32, 64, false), 0);
    EXPECT_EQ(figure_when_cut_short(24, 32, false), 0);
    EXPECT_EQ(figure_when_cut_short(0, 512.0 * 512 * 512, false), 0);  // nothing measured
}

TEST(CutShort, ARunThatFellShortWithinTheLibrarysLimitKeepsWhatItMeasured) {
    // The small path's team: short at 160^3, kept up at 192^3, out of time at 256^3.
    const double built_in = 640.0 * 640 * 640;
    EXPECT_EQ(figure_when_cut_short(192.0 * 192 * 192, built_in, true), 192.0 * 192 * 192);
    EXPECT_EQ(figure_when_cut_short(64.0 * 64 * 64, built_in, true), 64.0 * 64 * 64);
    EXPECT_EQ(figure_when_cut_short(0, built_in, true), 0);  // no size kept up: nothing to write
}

// A size the host's slowness left uncounted is skipped; two in a row cut the
// search short; a counted size in between starts the count again.
TEST(CutShort, OneSlowedSizeIsSkippedAndTwoInARowCutTheSearchShort) {
    ridge_tune::SlowedSizes slowed;
    EXPECT_FALSE(slowed.cut_short_after(true));
    EXPECT_FALSE(slowed.cut_short_after(false));
    EXPECT_FALSE(slowed.cut_short_after(true));
    EXPECT_FALSE(slowed.cut_short_after(false));
    EXPECT_TRUE(slowed.cut_short_after(false));
    ridge_tune::SlowedSizes first_two;
    EXPECT_FALSE(first_two.cut_short_after(false));
    EXPECT_TRUE(first_two.cut_short_after(false));
}

// Every test runs with RIDGE_PROFILE=none (test/CMakeLists.txt): the
// configuration then holds the built-in figures, the ones ridge-tune's
// cut-short rule compares against.
TEST(BuiltInCrossovers, AreTheFiguresTheLibraryUsesWithoutAProfile) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::BuiltInCrossovers builtin = ridge::builtin_crossovers();
    EXPECT_EQ(cfg.small_max_volume, builtin.small_max_volume);
    EXPECT_EQ(cfg.small_max_volume_alone, builtin.small_max_volume) << "one thread: the same built-in figure";
    EXPECT_GT(builtin.gemv_prefetch_elements, 0);
    EXPECT_EQ(cfg.gemv_prefetch_elements, builtin.gemv_prefetch_elements);
    for (ridge::Dtype input : {ridge::Dtype::f32, ridge::Dtype::f16, ridge::Dtype::bf16}) {
        EXPECT_GT(builtin.skinny_max_columns[int(input)], 0) << ridge::dtype_name(input);
        EXPECT_EQ(cfg.skinny_max_columns[int(input)], builtin.skinny_max_columns[int(input)])
            << ridge::dtype_name(input);
    }
}

// ridge-tune searches the AVX2 fp32 kernel too (its MC alone) where the
// library's default fp32 kernel is wider and the CPU has AVX2, so that
// RIDGE_ISA=avx2 runs a measured blocking; never where AVX2 is the default
// (searched in full as such) or absent.
TEST(AskedKernel, IsTheAvx2KernelWhereTheDefaultIsWider) {
    const ridge::GemmKernel& default_f32 = *ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    const ridge::GemmKernel* asked = ridge_tune::avx2_kernel_only_when_asked(default_f32);
    if (default_f32.isa != ridge::Isa::avx2 && ridge::cpu_supports(ridge::Isa::avx2)) {
        ASSERT_NE(nullptr, asked) << "default " << default_f32.name << " on a CPU with AVX2";
        EXPECT_EQ(ridge::Isa::avx2, asked->isa) << asked->name;
        EXPECT_EQ(ridge::Dtype::f32, asked->input) << asked->name;
    } else {
        EXPECT_EQ(nullptr, asked) << "default " << default_f32.name;
    }
    ridge::GemmKernel avx2_default = default_f32;
    avx2_default.isa = ridge::Isa::avx2;
    EXPECT_EQ(nullptr, ridge_tune::avx2_kernel_only_when_asked(avx2_default)) << "AVX2 is the default itself";
}

// The read sweep of a ridge-tune run on the Xeon VM (family 6 model 167, L2
// 2 MiB, DRAM about 12 GB/s), from 4 MiB up: the L3 plateau at 24-28 GB/s
// with single slow points at 23 MiB and 64 MiB before the fall from 128 MiB.
std::vector<ridge_tune::BandwidthPoint> xeon_l3_sweep() {
    return {{4194304, 27.9},    {5931520, 27.6},    {8388608, 25.1},    {11863040, 24.5},
            {16777216, 24.3},   {23726336, 20.1},   {33554432, 25.1},   {47452928, 24.8},
            {67108864, 19.1},   {94906112, 23.2},   {134217728, 19.7},  {189812480, 15.6},
            {268435456, 13.5},  {379624960, 12.3},  {536870912, 12.4}};
}

TEST(KneeAfter, OneSlowPointDoesNotEndThePlateau) {
    // Plateau 27.6 GB/s, floor 20.7: 23 MiB (20.1) and 64 MiB (19.1) dip alone;
    // from 128 MiB (19.7, then 15.6) the bandwidth stays below.
    EXPECT_EQ(ridge_tune::knee_after(xeon_l3_sweep(), 4194304), 94906112);
}

TEST(KneeAfter, ADropThatStaysEndsThePlateauAtTheLastSizeBeforeIt) {
    const std::vector<ridge_tune::BandwidthPoint> l2 = {
        {131072, 170}, {262144, 165}, {524288, 168}, {1048576, 162}, {1482752, 150}, {2097152, 66}, {2965760, 32}};
    EXPECT_EQ(ridge_tune::knee_after(l2, 131072), 1482752);
    // The sweep's last point falling is a drop on its own.
    const std::vector<ridge_tune::BandwidthPoint> ends = {{1, 100}, {2, 100}, {4, 100}, {8, 100}, {16, 40}};
    EXPECT_EQ(ridge_tune::knee_after(ends, 1), 8);
}

TEST(KneeAfter, TwoSweepsEndThePlateauOnlyWhereBothAreSlow) {
    // The first sweep meets a slow host at 23 and 32 MiB (two in a row below
    // the 20.7 floor: a knee at 16 MiB on its own); the second does not. Each
    // size's faster reading keeps the plateau to the real edge after 90 MiB.
    std::vector<ridge_tune::BandwidthPoint> slow = xeon_l3_sweep();
    slow[5].gbps = 17.6, slow[6].gbps = 18.0;
    ASSERT_EQ(ridge_tune::knee_after(slow, 4194304), 16777216);
    const auto both = ridge_tune::faster_per_size(slow, xeon_l3_sweep());
    EXPECT_EQ(ridge_tune::knee_after(both, 4194304), 94906112);
    EXPECT_EQ(ridge_tune::knee_after(ridge_tune::faster_per_size(xeon_l3_sweep(), slow), 4194304), 94906112);
    // An edge both sweeps see stays where it is.
    std::vector<ridge_tune::BandwidthPoint> early = xeon_l3_sweep();
    for (size_t i = 5; i < early.size(); ++i) early[i].gbps = 12.0;
    EXPECT_EQ(ridge_tune::knee_after(ridge_tune::faster_per_size(early, early), 4194304), 16777216);
    // Sizes that do not match (a sweep cut short) keep the first sweep's readings.
    const std::vector<ridge_tune::BandwidthPoint> other = {{1, 500}, {5931520, 99}};
    const auto kept = ridge_tune::faster_per_size(xeon_l3_sweep(), other);
    EXPECT_EQ(kept[0].gbps, 27.9);
    EXPECT_EQ(kept[1].gbps, 99);
    EXPECT_EQ(kept.size(), xeon_l3_sweep().size());
}

TEST(KneeAfter, NoDropOrTooFewPointsIsNoKnee) {
    const std::vector<ridge_tune::BandwidthPoint> flat = {{1, 100}, {2, 90}, {4, 110}, {8, 70}, {16, 100}};
    EXPECT_EQ(ridge_tune::knee_after(flat, 1), 0) << "one point at 70% and back up is noise";
    EXPECT_EQ(ridge_tune::knee_after(flat, 4), 0) << "fewer than four points from the start";
}

// The small path's crossover is timed with A off a line (16 bytes past, as
// glibc's malloc puts a large block) and on one: each malloc'd address (a
// multiple of 16) moves to the next such place within its spare line.
TEST(Placement, MovesAMatrixToTheSameOffsetFromALineWhereverMallocPutIt) {
    using ridge_tune::Placement;
    for (uintptr_t line : {uintptr_t(0x10000), uintptr_t(0x7f0000001240)}) {
        for (uintptr_t at = 0; at < 64; at += 16) {
            const uintptr_t address = line + at;
            const size_t on = ridge_tune::bytes_to_placement(address, Placement::on_line);
            const size_t off = ridge_tune::bytes_to_placement(address, Placement::off_line);
            EXPECT_EQ(0u, (address + on) % 64) << at;
            EXPECT_EQ(16u, (address + off) % 64) << at;
            EXPECT_LT(on, 64u);
            EXPECT_LT(off, 64u);
            EXPECT_EQ(0u, ridge_tune::bytes_to_placement(address, Placement::as_allocated));
        }
    }
    EXPECT_EQ(0u, ridge_tune::bytes_to_placement(0x10010, Placement::off_line)) << "already 16 bytes past a line";
    EXPECT_EQ(48u, ridge_tune::bytes_to_placement(0x10010, Placement::on_line));
}

// A blocked-path rule the library leaves off goes on only where two
// measurements both show it paying (tune/rule_verdict.h).
TEST(RuleVerdict, OneMeasurementThatPaysIsNotEnough) {
    using ridge_tune::rule_confirmed;
    using ridge_tune::rule_needs_second_measurement;
    EXPECT_TRUE(rule_needs_second_measurement({1.048}));
    EXPECT_FALSE(rule_confirmed({1.048}));
    EXPECT_TRUE(rule_confirmed({1.048, 1.02}));
    EXPECT_FALSE(rule_confirmed({1.048, 0.93})) << "the second measurement says no";
    EXPECT_FALSE(rule_needs_second_measurement({1.048, 0.93}));
}

TEST(RuleVerdict, AMeasurementThatFallsShortEndsIt) {
    using ridge_tune::kRuleMinGain;
    EXPECT_FALSE(ridge_tune::rule_needs_second_measurement({0.925}));
    EXPECT_FALSE(ridge_tune::rule_needs_second_measurement({kRuleMinGain - 0.001}));
    EXPECT_FALSE(ridge_tune::rule_confirmed({0.925}));
    EXPECT_FALSE(ridge_tune::rule_confirmed({}));
    EXPECT_TRUE(ridge_tune::rule_confirmed({kRuleMinGain, kRuleMinGain}));
}

// The block of A read in place is timed where the rule is weakest, at its
// largest lda (two thirds of MC in whole panels), besides 512 rows.
TEST(AInPlaceRows, TheLargestLdaTheRuleTakesIsTimed) {
    using ridge_tune::a_in_place_rows;
    const ridge_tune::AInPlaceRows intel = a_in_place_rows(1792, 32);  // MC on the Intel VMs' 2 MiB L2
    EXPECT_EQ(intel.largest, 1184);
    EXPECT_EQ(intel.fewer, 512);
    const ridge_tune::AInPlaceRows zen4 = a_in_place_rows(768, 32);
    EXPECT_EQ(zen4.largest, 512);
    EXPECT_EQ(zen4.fewer, 512);
    const ridge_tune::AInPlaceRows small = a_in_place_rows(600, 32);  // 400 rows: 12 panels
    EXPECT_EQ(small.largest, 384);
    EXPECT_EQ(small.fewer, 384);
    EXPECT_EQ(a_in_place_rows(40, 32).largest, 0) << "two thirds of MC holds no panel";
}

}  // namespace
