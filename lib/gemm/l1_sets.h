// The L1 data cache's set geometry, as the paths that read an operand in
// place see it. The L1s this project has met (Zen 4's 32 KiB 8-way, Zen 5's
// and Intel's 48 KiB 12-way) all have 64 sets of 64-byte lines: addresses
// 4 KiB apart share a set, and columns a multiple of 1 KiB apart fall on at
// most 4 of the 64 set offsets. Which paths take which stride as crowding a
// few sets is each path's measured rule (gemm_small.cpp: tile_height and
// b_columns_share_l1_sets; gemm_skinny.cpp: columns_on_few_l1_sets;
// paths.cpp).
#pragma once

#include <cstdint>

namespace ridge {

constexpr int64_t kL1SetPeriodBytes = 4096;
constexpr int64_t kFewL1SetsStrideBytes = 1024;
// A kernel whose MR rows of fp32 span at least this (AVX-512's 32) reads two
// lines per column and step, which columns kFewL1SetsStrideBytes apart put on
// 4 set offsets.
constexpr int64_t kTwoCacheLinesBytes = 128;
// Columns of C up to which the small path runs tall tiles on such strides
// (gemm_small.cpp: tile_height, where it was measured); paths.cpp's rule for
// an A beyond half of L2 leaves those to it.
constexpr int64_t kTallTilesMaxColumns = 16;

}  // namespace ridge
