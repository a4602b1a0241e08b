// Skinny GEMM, few columns (decode: a weight matrix times a handful of
// vectors): C = alpha * A * op(B) + beta * C with A untransposed, n small.
//
// Packing A would read and write all of A to reuse each element only n times;
// instead A is read once, in place, by the skinny kernel (GemmKernel::skinny).
// The sweep is what matters for memory: k in chunks of a few columns, each
// chunk swept over a block of rows, so A streams as that many sequential column
// runs (a number the hardware prefetchers can follow) and the block's C stays
// in L2 between chunks (all rows when C is small; a wide C in blocks). Within
// a chunk each tile of A rows (MR rows of the chunk, from L1) meets every
// column group of C before the sweep moves on, and the kernel prefetches a
// tile a few further on while it computes (prefetch_tiles_ahead).
// B's chunk (its rows of op(B), up to 256 KiB as fp32) is copied k-major first
// (an fp32 B stored untransposed one column group after another), converted
// to fp32, so the kernel's broadcasts come from one pointer at fixed offsets.
// A of fp16 or bf16 is widened by the kernel as it loads (the FMAs are
// fp32's): half the bytes streamed.
// Threads split rows, claimed in pieces (kPieceEndsInEighths); each C
// element sees the same chunks in the same order whichever thread runs it.
#include <algorithm>
#include <cstring>

#include "gemm/claim.h"
#include "gemm/gemm.h"
#include "gemm/l1_sets.h"
#include "gemm/pack.h"
#include "gemm/workspace.h"

namespace ridge {
namespace {

// Columns of A per chunk (see skinny_chunk_columns). Each column is one
// sequential stream from memory, and each chunk ends with an update of every
// tile of C (read, add, write). Below 8 columns of C the sweep is bound by
// reading A (intensity ~n/2 flop/byte, well below this machine's ridge point
// of ~8): 16 streams, within the 16-32 the L2 streamer of current cores tracks
// at once. From 8 columns on the C updates weigh more (at 8, one 8-column tile:
// a C update every 16 k steps of 16 FMAs), and longer chunks cut them (the
// kernel's own prefetch of the tiles ahead covers streams the hardware drops).
// How long depends on how hard the sweep still leans on memory: an fp32 A
// up to 20 columns of C takes 16-column chunks (below), up to 32 columns
// 32-column chunks; a 16-bit A (half the bytes per column) or more than 32
// columns of C take 64.
// Measured, 1 thread, 4096 x n x 4096 (GFLOP/s, 16 / 32 columns a chunk):
// n = 4 55 / 52, 8 97 / 93, 24 124 / 133, 32 126 / 131, 64 119 / 127; n = 16
// in six alternating runs 121-137 / 121-131, on 2 threads 202-224 / 237-249,
// fp16 A 128-134 / 141-144, 2048 x 16 x 2048 128-138 / 130-141.
// Then, medians of paired per-call ratios (two builds alternating in one
// process), 64 / 32 columns a chunk: fp32 n = 16 0.92, 32 0.96-1.00, 40 1.02,
// 48 1.04, 64 1.04-1.07 (2 threads 1.03), 96 1.06; fp16 A n = 16 1.08, 32
// 1.08, 64 1.12; bf16 A n = 32 1.12, 64 1.12; 128 columns lost at n = 16-32
// (0.66-0.85) and gained nothing at 64 (0.98-1.07). Below 16 columns, 32 / 16
// columns a chunk: fp32 n = 2 0.98, 4 1.00-1.02, 8 1.04-1.05, 12 1.10; and 64
// / 16 with fp16 A: n = 4 0.97, 8 1.16, 12 1.26.
// Those were an Intel core's (2 MiB L2). The Zen 5 VM follows fewer streams:
// an fp32 A up to 20 columns of C runs 16-column chunks there, with the
// kernel's prefetch 4 tiles (8 KiB) ahead. Paired, 1 thread, 4096 x n x 4096
// (`ridge-ab OLD NEW 4096 n 4096 11`), 16 columns and 4 tiles ahead against
// 32 and 4 (n >= 8) or 16 and 1 (n < 8): n = 2 1.03, 4 1.09, 6 1.12, 8 1.44,
// 12 1.15, 16 1.14, 20 1.02; at n = 24 and 32, 16 columns lost (0.91-0.94);
// a 16-bit A at n = 16 gained nothing from it (fp16 0.94-0.96, bf16 1.05
// where 32 and 64 columns measured 1.03-1.06 in the same runs).
// All of that is for an A streamed from memory. An A that fits the last-level
// cache comes from there, where the number of streams does not matter but the
// C updates still do: from 8 columns of C it takes 64-column chunks whatever
// its type. Measured on the Zen 5 VM, paired against 16 / 32 columns
// (`ridge-ab OLD NEW M N K 15`, 1 thread): A of 1 MiB 1024 x 16 x 256 1.15-1.20,
// 1024 x 24 x 256 1.09, 1024 x 32 x 256 1.06; 2 MiB 1024 x 8 x 512 1.16,
// 1024 x 16 x 512 1.13; 4 MiB 2048 x 8 / 12 / 16 / 24 / 32 x 512 1.12 / 1.23 /
// 1.13 / 1.07 / 1.09; 1000 x 12 x 300 1.23; 2 threads 2048 x 16 x 512 1.25,
// 1024 x 32 x 256 1.06, 2048 x 12 x 1024 1.32. Below 8 columns it was mixed
// (1024 x 2 / 4 x 256 0.99, 2048 x 2 x 512 0.91, 1000 x 4 x 300 1.26), so they
// keep 16. The same build lost 0.72 / 0.81 at 4096 x 8 / 16 x 4096 (64 MiB,
// from memory), which keeps the rule above.
// An fp32 A from memory whose columns lie a multiple of 4 KiB apart (4096 x n
// x 4096, a decode step's shape) streams worse the more columns it reads at
// once: 16 columns visited a tile (128 bytes) at a time read 22-27 GB/s in a
// load-only loop there against 36-40 at 4112 rows, the same 16 columns at a
// column stride off the power of two. 8 columns do better there, so up to 8
// columns of C that A takes 8-column chunks. Paired against 16 columns
// (`ridge-ab OLD NEW 4096 n 4096 11`, 1 thread): n = 2 1.34-1.37, 4
// 1.22-1.26, 6 1.21-1.23, 7 1.17, 8 1.02-1.12; 8192 x 4 x 8192 1.22; 2
// threads n = 4 1.21-1.26; malloc'ed matrices (OFFSET=4) n = 4 1.27. From 9
// to 12 columns it measured 0.90-1.11 from run to run, so they keep 16. At
// 4112 rows it lost (n = 4 0.93), and from a cache it changed nothing (1024 x
// 4 x 256 1.00), nor for a 16-bit A (fp16 n = 4 1.01, bf16 0.96).
// In the tall tiles (48 x 8: uses_tall_tiles), which an fp32 A from memory
// runs at such a stride from 9 columns of C on, 21-32 columns take 64-column
// chunks again: the tall tile then prefetches the next into L2 only
// (skinny_tall_tile_avx512.h), and the C updates halve. Paired against 32
// (`ridge-ab OLD NEW M N K 9 [TRANS]`, 1 thread unless said): 2 threads 4096 x
// 32 x 4096 1.16-1.22 in both orders; one thread 1.025-1.032 over four runs in
// both orders in an experiment build (OFFSET=4 1.023, 8192 x 32 x 8192 1.023,
// 32 x 4096 x 4096 NT, on C^T, 1.032), 1.000-1.012 in the final one. In the
// 32 x 12 tiles 64 lost: 4096 x 24 / 28 x 4096 0.92 / 0.88.
constexpr int64_t kMaxChunkColumns = 64;
// On the Zen 4 an A from a cache goes further: the C updates keep costing
// down to chunks of 512 columns, where the column group's share of B's chunk
// (512 x 12 fp32, 24 KiB) still fits in three quarters of L1, as the blocked
// path's deepest KC does (deepest_kc_in_l1). Paired against 64 columns
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 7 [TRANS TYPE]`, an experiment
// build reading the chunk from the environment): 1024 x 16 x 256 1.06, 2048 x
// 12 x 512 1.07, 1024 x 24 x 1024 1.05, 512 x 32 x 2048 1.03, 2048 x 32 x 512
// 1.09, 768 x 48 x 2048 1.06, 1024 x 64 x 1024 1.03, 1024 x 128 x 1024 1.03,
// 600 x 96 x 4096 1.00, 2048 x 96 x 2048 1.01, 1024 x 32 x 4096 1.01, 32 x
// 1024 x 1024 NT (on C^T) 1.03, fp16 1024 x 64 x 1024 1.04, bf16 0.99-1.01;
// 256 columns gained less (2048 x 32 x 512 1.03, 1024 x 64 x 1024 1.01).
// Not where A's columns lie a multiple of 4 KiB apart (columns_4_kib_apart;
// for fp32 any multiple of 1 KiB: columns_on_few_l1_sets): a tile's 512
// columns then fall into the same few sets of L1 (64 sets of 64 bytes: a 4
// KiB period), and the sweep ran at half speed; 64 columns a chunk there. On
// the Intel VM, 1 thread, against 512 (an experiment build reading the chunk
// from the environment, `ridge-ab OLD NEW M N K 7-9 [NN TYPE]`, 4 KiB pages):
// 1024 x 32 / 64 x 1024 1.92 / 1.77, 2048 x 32 x 512 1.87 (87 -> 162-169
// GFLOP/s); fp16 2048 / 4096 x 32 x 512 1.58 / 1.57; 128 columns 1.77-1.90,
// 256 1.53-1.63, 32 1.72-1.78. Off that stride nothing moved (512 x 48 x
// 2048, fp32 columns 2 KiB apart, 1.009).
// From memory, on the 32 x 12 tiles, it was mixed (256 columns: 4096 x 48 x
// 4096 0.96-0.98, 4000 x 64 x 4000 0.97-0.98), so an A from memory keeps the
// rules above, but on the tall tiles (next).
constexpr int64_t kCachedChunkColumns = 512;
// On the Intel VM an fp32 A in a cache on the tall tiles (48 x 8: uses_tall_tiles,
// whose column groups after the first reread the tile from L2) ran better on
// 256 columns: a 48-row tile of 256 columns is 48 KiB, of 512 twice L1.
// Against 512 (`RIDGE_NUM_THREADS=T build/bench/ridge-ab OLD NEW M N K 11
// [TRANS]`, an experiment build reading the chunk from the environment): 1
// thread 448 x 32 x 2048 1.032-1.042, 500 x 32 x 2048 1.025-1.027, 1000 x 32
// x 1000 1.038-1.040, 1000 x 40 x 1000 1.021, 32 x 1000 x 1000 NT (on C^T)
// 1.037, 1000 x 64 x 1000 1.009-1.013; 2 threads 448 x 32 x 2048 1.025;
// elsewhere 0.996-1.001 (512 x 64 x 2048, 2048 x 32 x 512, 1024 x 64 x 1024,
// 2000 x 32 x 2000, 384 x 32 x 4096). 128 columns lost at 1000 x 32 x 1000
// (0.950) and 1000 x 40 x 1000 (0.930), 384 gained less (1.006-1.013). A 16-bit
// A measured no different (fp16 / bf16 0.991-1.008): it keeps 512.
constexpr int64_t kCachedTallChunkColumnsF32 = 256;
// An fp32 A from memory on the tall tiles (uses_tall_tiles: past 20 columns,
// or at a power-of-two stride) goes further too: those tiles prefetch the
// next into L2 only, so a longer one does not crowd L1. 256 columns a
// chunk, paired against 64 (an experiment build, `RIDGE_NUM_THREADS=1
// ridge-ab OLD NEW M N K 7 [NT]`):
// 4096 x n x 4096 n = 32 1.03, 40 1.05, 56 1.05, 64 1.04, 128 1.05, 8192 x 64
// x 8192 1.05, 64 x 4096 x 4096 NT (on C^T) 1.04; 2 threads n = 32 1.05, 64
// 1.06; with the tall tiles at multiples of 12 columns, n = 24 / 48 / 96 1.12
// / 1.16 / 1.07 against the 32 x 12 tile with 64. On the 32 x 12 tiles (4000
// x 64 x 4000, before those took the tall tile) 256 lost, 0.97, and 128
// measured 0.99: they keep 64 (or 32 up to 32 columns).
// Not where A's columns lie a multiple of 4 KiB apart (columns_4_kib_apart,
// the decode shape 4096 x n x 4096 among them; for fp32 any multiple of 1 KiB:
// columns_on_few_l1_sets): there a tile's 256 columns
// share a few sets of L1 and, once A is physically contiguous (on 2 MiB pages:
// THP set to always, a common default), of L2 as well, and the sweep ran at
// half speed; 64 columns a chunk, as before, there. On the Intel VM, against
// 256 (`RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 7`, an experiment build
// reading the chunk from the environment, 1 thread unless said; THP set with
// /sys/kernel/mm/transparent_hugepage/enabled): on 4 KiB pages 4096 x n
// x 4096 n = 24 1.39, 32 1.33, 64 1.15, 2 threads n = 32 1.16; 8192 x 64 x
// 8192 1.11, 2048 x 32 x 4096 1.14, 3072 / 5120 / 6144 x 32 x 4096 (12 / 20 /
// 24 KiB apart) 1.18 / 1.49 / 1.16, 6144 x 48 x 4096 1.71, 1024 x 32 x 8192
// 1.20, 32 x 4096 x 4096 NT (on C^T) 1.33; with THP always 4096 x 32 / 64 x
// 4096 1.98 / 2.03 (256 ran 44-69 GFLOP/s there, the blocked path 86-111),
// 6144 x 32 x 4096 1.47. Off the power of two 256 stays ahead: 4000 x 32 /
// 64 x 4000 0.89 / 0.95 with 64, 3000 x 48 x 3000 0.82. On the Zen VMs 256
// had measured 3-5% ahead at 4096 x n x 4096 (above, 4 KiB pages); a halving
// on 2 MiB pages outweighs that.
constexpr int64_t kTallChunkColumnsFromMemory = 256;
constexpr int64_t kMemoryBoundColumns = 8;  // below it, 16-column chunks
constexpr int64_t kFewStreamsColumnsF32 = 20;  // fp32 A, up to it: 16-column chunks
constexpr int64_t kPowerOfTwoStrideBytes = 4096;  // A's columns a multiple of this apart:
constexpr int64_t kPowerOfTwoStrideMaxColumns = 8;  // up to this many columns of C,
constexpr int64_t kPowerOfTwoStrideChunk = 8;       // chunks of this many (see above)
// Whether A's columns lie a multiple of kPowerOfTwoStrideBytes apart.
bool columns_4_kib_apart(int64_t lda, Dtype input) {
    return (lda * int64_t(dtype_bytes(input))) % kPowerOfTwoStrideBytes == 0;
}

// Whether the long chunks (kCachedChunkColumns, kTallChunkColumnsFromMemory)
// would put a tile's columns of A on a few L1 sets: 4 KiB apart for any type;
// for fp32 also any multiple of 1 KiB, where the columns fall on at most 4 of
// the L1's 64-byte set offsets (4 KiB period) and a 48-row tile spans 3-4
// lines of each. Those take kMaxChunkColumns as at 4 KiB. Measured on the
// Intel VM against the long chunks (`RIDGE_NUM_THREADS=T build/bench/ridge-ab
// OLD NEW M N K 7-9 [NN TYPE]`, an experiment build reading the chunk from
// the environment, 1 thread unless said; three runs), A in a cache: 512 x 16 /
// 32 / 64 x 1000 1.19-1.24 / 1.10-1.23 / 1.03-1.18 (2 KiB apart; oneDNN ran
// 1.23x ridge at 512 x 64 x 1000), 512 x 48 x 2000 1.16, 512 x 64 x 2000
// 1.14, 768 x 64 x 1000 (3 KiB) 1.06, 1536 x 64 x 1000 (6 KiB) 1.04, 2560 x
// 32 x 1000 1.12, 2 threads 512 / 1536 x 64 x 1000 1.17 / 1.07; A from
// memory (tall tiles, 256 before) 2560 x 32 x 8192 1.36, 1536 x 64 x 8192
// 1.08. Not for 16-bit A (a 48-row tile is 1.5 lines a column there): fp16
// 512 / 1024 x 64 x 1000 0.94 / 0.97. Off such strides the long chunks stay:
// 640 x 64 x 1000 (2.5 KiB) 1.03, 1000 x 64 x 1000 0.97. AVX2's 16-row tiles
// (one line a column) gain as well: with 4 KiB multiples only,
// `RIDGE_ISA=avx2` 512 x 24 / 16 x 1000 ran 0.930 / 0.955 (1024 x 24 x 1000
// 1.002).
bool columns_on_few_l1_sets(int64_t lda, Dtype input) {
    if (columns_4_kib_apart(lda, input)) return true;
    return dtype_bytes(input) == 4 && (lda * int64_t(dtype_bytes(input))) % kFewL1SetsStrideBytes == 0;
}

// How many MR-row tiles ahead the kernel prefetches A: far enough to cover the
// memory latency by the time the sweep gets there (one tile of one chunk is a
// few hundred cycles of FMAs), near enough that the tiles on their way, the
// tile being computed and B's chunk share L1. Measured first with 32 fp32
// columns a chunk (4 KiB tiles): 2, 4 and 8 within noise of each other;
// without it 10-15% slower at n = 16..64. Hence 16 KiB of tiles ahead, at most
// 4 tiles: the 8 KiB tiles of 64 fp32 columns go 2 ahead (against 4: n = 40
// 1.013, 48 1.012-1.028, 64 1.007-1.010), smaller tiles stay 4 ahead (8 ahead
// at fp32 n = 4-8 1.008-1.015, 16 ahead at fp16 n = 4-8 0.989-0.998).
// Below kMemoryBoundColumns columns of C, a 16-bit A (16-column chunks: 16
// streams, which the L2 streamer carries) one tile ahead: the prefetch only
// has to bring the next tile from L2, and farther ones hold the fill buffers
// the streams need. Measured on the Intel core, 1 / 4 tiles ahead: fp32 n = 2
// 1.049, 4 1.070-1.087, 6 1.046 (2 tiles: 0.98-1.00), fp16 A n = 2-4
// 1.070-1.083, bf16 1.033-1.050, 2 threads n = 4 1.062; n = 16-64 1.00-1.01.
// On the Zen 5 VM an fp32 A wants 4 tiles ahead there too (see
// kFewStreamsColumnsF32 for the numbers), so only a 16-bit A keeps one.
constexpr int64_t kPrefetchBytesAhead = 16 * 1024;
constexpr int64_t kMaxPrefetchTiles = 4;
int64_t prefetch_tiles_ahead(int64_t n, int64_t MR, int64_t chunk, int64_t bytes) {
    if (n < kMemoryBoundColumns && bytes == 2) return 1;
    return std::clamp<int64_t>(kPrefetchBytesAhead / (MR * chunk * bytes), 1, kMaxPrefetchTiles);
}

// How the column groups of a tile share the prefetch of the tile ahead
// (SkinnyPrefetch). The first group used to prefetch all of it, a column a k
// step, and the other groups nothing; on the Zen 5 VM that first group took
// 1.9x the time of each other one at 4096 x 64 x 4096 (perf, cpu-clock: 20% of
// the tall tile's samples for 1/8 of its FMAs), as it asked for a whole tile
// from memory (48 KiB at 256 steps) in an eighth of the tile's time, 16 bytes
// a cycle. oneDNN's no-copy kernel, which runs that shape at 184 GFLOP/s to
// ridge's 161, prefetches its next tile a column every 8 k steps over all its
// column groups (its JIT code dumped from the running process and its
// registers read under gdb: A and B read in place, lda 16000 bytes).
// So with A from memory, on one thread, a chunk of kMinSpreadChunk steps or
// more and kMinSpreadGroups groups or more, the groups share the tile: a
// column every steps_per_column steps (the groups, at most kMaxSpreadSteps),
// its lines one a step. Paired against the first group alone
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 9`, 1 thread): 4096 x 64 x 4096
// 1.05-1.08 over four runs, 4000 x 64 x 4000 1.04-1.06, 8192 x 64 x 8192
// 1.02-1.07, 2048 x 64 x 2048 1.03-1.04, 4096 x 32 / 48 x 4096 1.06-1.09 /
// 1.03-1.08, 4096 x 36 x 4096 (the 32 x 12 tile, 3 groups) 1.03-1.06, 4000 x
// 96 / 128 x 4000 1.04 / 1.03-1.04, 64 x 4096 x 4096 NT (on C^T) 1.03; a
// column every 8 steps for 12 or 16 groups measured 1.04 / 1.04 against one
// every 12 or 16 steps 1.03 / 1.04, and every 8 steps with 4 or 6 groups
// (which then cover half or three quarters of the tile) 0.92 / 1.01.
// Where it is not spread, measured: A in a cache 1024 x 64 x 1024 0.986 /
// 0.96 (slots swapped), 512 x 64 x 2048 0.986 / 0.96, 1024 x 48 x 1024 0.98
// (2048 x 64 / 32 x 512 1.02 / 1.03); 16-column chunks (AVX2's 16 x 6 tile,
// 4000 x 18 x 4000, 3 groups) 0.83-0.84; 2 threads 4096 x 64 x 4096 0.96 /
// 0.96 and 0.97 / 0.99 with the slots swapped, 4096 x 32 x 4096 0.85, in a
// spell where two copies of one build read 0.96-1.01 there; later, each pair
// of runs in both slot orders (2 threads gave the build in the first slot up
// to 25% more at 4096 x 32 x 4096, either build), their geometric mean:
// 4096 x 64 x 4096 0.99 / 1.01, 4096 x 32 x 4096 1.02 / 1.03, 8192 x 48 x
// 8192 0.93 / 0.95.
constexpr int64_t kMinSpreadGroups = 3;
constexpr int64_t kMinSpreadChunk = 64;
constexpr int64_t kMaxSpreadSteps = 8;
int64_t spread_steps_per_column(int64_t groups) {
    return groups < kMinSpreadGroups ? 1 : std::min(groups, kMaxSpreadSteps);
}

// What column group grp of `groups` prefetches of the tile ahead (null: none),
// kc columns deep, lda_bytes between its columns: spread (spread_steps_per_column)
// or all of it by the first group.
SkinnyPrefetch group_prefetch(const char* ahead_tile, int64_t grp, int64_t groups, int64_t kc, int64_t lda_bytes,
                              bool spread) {
    const int64_t steps = spread && kc >= kMinSpreadChunk ? spread_steps_per_column(groups) : 1;
    if (ahead_tile == nullptr) return {};
    if (steps == 1) return grp == 0 ? SkinnyPrefetch{ahead_tile, 1} : SkinnyPrefetch{};
    const int64_t columns = (kc + steps - 1) / steps;  // each group's share, the last one's maybe short
    if (grp * columns >= kc) return {};
    return {ahead_tile + grp * columns * lda_bytes, steps};
}

// Column groups: n split into the fewest groups of at most NR columns, as
// even as possible (16 = 8 + 8, not 12 + 4), so that no call runs a narrow
// tile (a 4-column tile spends 6 loads on 8 FMAs, with only 8 accumulators to
// cover the FMA latency). Measured against filling 12-column groups first, in
// the driver with the whole-vector kernel: within 3% either way (4096 x 16 and
// 40 x 4096, 512 x 16 x 1024, 1024 x 28 x 2048, 1 thread, alternating).
struct ColumnGroups {
    int64_t count, base, extra;  // `extra` groups of base + 1 columns, then groups of base
    int64_t first(int64_t g) const { return g * base + std::min(g, extra); }
    int64_t width(int64_t g) const { return base + (g < extra ? 1 : 0); }
};
ColumnGroups column_groups(int64_t n, int64_t NR) {
    const int64_t count = (n + NR - 1) / NR;
    return {count, n / count, n % count};
}

// What the sweep runs: the tile (MR x NR, its kernel) and B's chunk copiers.
struct SweepKernels {
    int64_t MR, NR;
    GemmSkinnyUkr tile;
    TransposeF32 transpose_b;  // the kernel's transposing copy and fp32 packer,
    PackPanel pack_b;          // for B's chunks (copy_b_chunk)
};

// The tile the sweep runs: the kernel's own (32 x 12 for AVX-512) or its tall
// one (GemmKernel::skinny_tall, 48 x 8; why it is faster where A's columns lie
// a multiple of 4 KiB apart: skinny_tall_tile_avx512.h). The tall tile pays
// where its column groups are full, 8 columns wide, and the kernel's own are
// not 12 wide (n a multiple of 8 but not of 12), or where both run one group
// of the same width (n <= 8), but for an fp32 A from memory only at a column
// stride of a multiple of 4 KiB and more than 8 columns (fewer take the
// 8-column chunks, tuned for 32-row tiles). Measured on the Zen 5 VM, paired
// against the 32 x 12 tile (`ridge-ab OLD NEW M N K 15 [NN f16]`, 1 thread):
// - A in a cache, lda a power of two: 2048 x n x 512, n = 4 1.09, 6 1.16, 8
//   1.12, 16 1.12, 32 1.07, 64 1.04; 1024 x 16 x 1024 1.10; fp16 n = 16 1.09;
// - A in a cache, off the power of two: 2064 x 8 / 16 / 32 x 512 1.06 / 1.03
//   / 1.04, 1000 x 16 x 1000 1.04;
// - fp32 A from memory, 4096 x n x 4096: n = 16 1.07, 32 1.05, 64 1.03; at
//   4112 rows n = 16 / 32 / 64 0.98 (not taken), n = 4 / 8 at 4096 0.95 (not
//   taken);
// - fp16 A from memory: 4096 x 8 / 16 / 32 x 4096 1.12 / 1.18 / 1.09, 4112
//   rows 1.06 / 1.05 / 1.02;
// - bf16 A (in place up to 16 columns: GemmChoice::in_place_sibling), widened
//   in order by the tall tile: 4096 x 8 / 16 x 4096 1.17 / 1.20 (2 threads
//   1.10), 4112 x 16 x 4112 1.05, 2048 x 16 x 512 1.08, 16 x 2048 x 512 NT (on
//   C^T) 1.08; n = 4 0.98, A in a cache off the power of two 1.00-1.03.
// Where the tall groups are narrower than the kernel's own it lost: n = 12
// (6 + 6 against 12) 0.86, 20 0.93, and 24 (8 x 3 against 12 x 2) measured
// 0.93-1.06 by lda, so those keep the kernel's tile.
// On the Zen 4 an fp32 A from memory takes the tall tile wherever its groups
// are whole, multiples of 12 columns included, and past 20 columns (those in
// 256-column chunks: kTallChunkColumnsFromMemory) at any stride: the 32 x 12
// tile streams it worse there (4096 x 48 x 4096 ran 92-94 GFLOP/s, 4096 x 40
// / 56 x 4096 on tall tiles 101-104). Paired, 1 thread, against the kernel's
// tile (experiment builds, `RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 7
// [NT]`): at a power-of-two stride, both in 64-column chunks, 4096 x 24 / 48
// / 96 x 4096 1.05 / 1.10 / 1.05, 8192 x 48 x 8192 1.10, 48 x 4096 x 4096 NT
// (on C^T) 1.09; at other strides, both with their chunks, 4000 x 24 / 32 /
// 40 / 48 / 64 x 4000 1.13 / 1.10 / 1.19 / 1.12 / 1.09, 4112 x 96 x 4112
// 1.09, 5000 x 128 x 5000 1.06, 64 x 4000 x 4000 NT 1.11, 2 threads 4000 x
// 32 / 64 x 4000 1.23 / 1.10; but 4000 x 16 x 4000 (16-column chunks) 0.99,
// 2 threads 0.98, as on the Zen 5 (above). A in a cache gained nothing (1024
// x 48 x 1024 1.01, 2048 x 24 x 512 1.00, 768 x 96 x 2048 0.98), nor a
// 16-bit A (fp16 / bf16 4096 x 48 x 4096 1.06 / 1.00 with quartiles from 0.94
// to 1.08, fp16 4000 x 64 x 4000 1.01): they keep the rule above.
bool uses_tall_tiles(const GemmArgs& g, const GemmKernel& ker, bool a_from_memory) {
    if (ker.skinny_tall == nullptr) return false;
    const bool whole_tall_groups = g.n <= kSkinnyTallNR || g.n % kSkinnyTallNR == 0;
    if (!whole_tall_groups) return false;
    if (a_from_memory && dtype_bytes(g.input) == 4)
        return g.n > kFewStreamsColumnsF32 ||
               (columns_4_kib_apart(g.lda, g.input) && g.n > kPowerOfTwoStrideMaxColumns);
    return g.n <= kSkinnyTallNR || g.n % ker.NR != 0;
}
SweepKernels sweep_kernels(const GemmArgs& g, const GemmKernel& ker, bool a_from_memory) {
    if (uses_tall_tiles(g, ker, a_from_memory))
        return {kSkinnyTallMR, kSkinnyTallNR, ker.skinny_tall, ker.transpose_c, ker.pack_panel_b};
    return {ker.MR, ker.NR, ker.skinny, ker.transpose_c, ker.pack_panel_b};
}
int64_t sweep_chunk(const GemmArgs& g, const GemmKernel& ker, bool a_from_memory) {
    return skinny_chunk_columns(g.n, g.input, a_from_memory, g.lda, uses_tall_tiles(g, ker, a_from_memory));
}

// The sweep's tiles of rows. When A's columns all start the same distance into
// a cache line (a malloc'ed A, 16 bytes in, with lda a whole number of lines),
// a first tile of `head` rows reaches the first aligned row, so that every
// later MR-row tile loads whole lines: two per k step for fp32, one for 16-bit
// A, the lines the kernel prefetches (an fp32 tile straddling three lines ran
// 13-20% slower: 4096 x n x 4096, n = 8, 16, 32).
struct RowTiles {
    int64_t m, MR, head;
    int64_t count() const { return (head > 0 ? 1 : 0) + (m - head + MR - 1) / MR; }
    // First row of tile t; m for t == count().
    int64_t first(int64_t t) const {
        const int64_t row = head == 0 ? t * MR : t == 0 ? 0 : head + (t - 1) * MR;
        return std::min(row, m);
    }
};
RowTiles row_tiles(const GemmArgs& g, int64_t MR) {
    const int64_t bytes = dtype_bytes(g.input), rows_per_line = 64 / bytes;
    const uintptr_t address = reinterpret_cast<uintptr_t>(g.a);
    const int64_t line_offset = int64_t(address % 64) / bytes;
    const bool uniform = (g.lda * bytes) % 64 == 0 && address % uintptr_t(bytes) == 0;
    const int64_t head = uniform && line_offset != 0 ? std::min(g.m, rows_per_line - line_offset) : 0;
    return {g.m, MR, head};
}

// A chunk's copy of op(B), converted to fp32 (exactly) by the kernel's vector
// code, in one of two layouts (GroupOfB says where a column group's columns
// are):
// - an fp32 B stored untransposed: by column group, each group's columns (j0
//   to j0 + width) k-major on their own, group[p*width + j] = op(B)(p0 + p,
//   j0 + j), each group's copy starting a line (group_copy_offset), written
//   16 x 16 at a time by the kernel's transposing copy. A tile then broadcasts
//   from kc x width contiguous floats, not from a width-float slice of every
//   n-float row, so its share of B takes kc * width floats of L1 instead of
//   up to two lines per k step (a 10-column group of a 50-column C: 12 KiB
//   against up to 38 KiB at kc = 300, beside a 38 KiB tile of A). Measured
//   on the Intel VM, paired against the n-wide copy in both orders
//   (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 15`, a noisy host): 600 x 50
//   x 300 1.021 / 1.027, 2000 x 24 x 500 1.019 / 1.030, 3000 x 50 x 300 1.009
//   / 1.008, 1000 x 64 x 1000 1.011 / 1.015, 4096 x 16 x 4096 1.004 / 0.992.
// - any other B: one k-major n-wide copy, b_chunk[p*n + j] = op(B)(p0 + p, j),
//   packed as one n-wide panel of op(B)^T's rows by the kernel's fp32 packer,
//   which widens 16-bit values. Packed by group instead (width-wide panels,
//   each k step's run of a transposed B cut into shorter masked pieces) it
//   lost: 512 x 16 x 2048 NT 0.965-0.972 for fp32 and fp16, fp16 1000 x 64 x
//   1000 0.990, fp32 NT 0.977-0.985.
// (The packer would do for an untransposed fp32 B too, but it prefetches the
// rows of the panel after, past B's n columns here: 0.97 of the transposing
// copy at 512 x 16 x 2048.) Element by element (a column ldb apart per
// element, a 16-bit value widened one at a time in portable code) the copy
// took 14% of a 512 x 16 x 2048 call for fp32 and bf16, 30% for fp16 (perf,
// cpu-clock), where the sweep's FMAs per chunk are few. Paired against that
// (`ridge-ab OLD NEW M N K 15 [NN|NT TYPE]`, 1 thread): fp32 512 x 16 x 2048
// 1.08-1.11, 1024 x 24 x 1024 1.08, 2048 x 64 x 512 1.05, 1000 x 12 x 1000
// 1.04, 2048 x 16 x 512 1.01-1.02; fp16 512 x 16 x 2048 1.43, NT 1.31, 2048 x
// 16 x 512 1.09; bf16 512 x 16 x 2048 1.16, 2048 x 16 x 512 1.03; A from
// memory 4096 x 2 / 8 / 16 / 32 x 4096 0.98-1.02, fp16 and bf16 4096 x 16 x
// 4096 1.01-1.03 (sweeps bound by reading A).
bool copies_b_by_group(const GemmArgs& g) { return g.input == Dtype::f32 && !g.trans_b; }

// Floats of a chunk's copy for a column group of `width` columns over kc k
// steps, rounded up to whole lines (each group's copy starts a line).
int64_t group_copy_floats(int64_t kc, int64_t width) { return (kc * width + 15) / 16 * 16; }
// Where column group grp's copy starts in a chunk's copy of kc k steps, by group.
int64_t group_copy_offset(const ColumnGroups& groups, int64_t kc, int64_t grp) {
    const int64_t wide = std::min(grp, groups.extra);
    return wide * group_copy_floats(kc, groups.base + 1) + (grp - wide) * group_copy_floats(kc, groups.base);
}
// Floats of a whole chunk's copy of kc k steps, in either layout (by group is
// the larger: kc * n plus the lines' padding).
int64_t chunk_copy_floats(const ColumnGroups& groups, int64_t kc) {
    return group_copy_offset(groups, kc, groups.count);
}

// Where column group grp's columns of op(B) are in a chunk's copy: its first
// column's k step 0, and the floats from one k step to the next.
struct GroupOfB {
    const float* b;
    int64_t step;
};
GroupOfB group_of_b(const GemmArgs& g, const ColumnGroups& groups, const float* b_chunk, int64_t kc, int64_t grp) {
    if (copies_b_by_group(g)) return {b_chunk + group_copy_offset(groups, kc, grp), groups.width(grp)};
    return {b_chunk + groups.first(grp), g.n};
}

void copy_b_chunk(const GemmArgs& g, const SweepKernels& kernels, int64_t p0, int64_t kc, float* b_chunk) {
    if (copies_b_by_group(g)) {
        const ColumnGroups groups = column_groups(g.n, kernels.NR);
        const float* b = static_cast<const float*>(g.b) + p0;
        for (int64_t grp = 0; grp < groups.count; ++grp) {
            const int64_t width = groups.width(grp);
            kernels.transpose_b(kc, width, b + groups.first(grp) * g.ldb, g.ldb,
                                b_chunk + group_copy_offset(groups, kc, grp), width);
        }
        return;
    }
    const MatrixView chunk = offset(MatrixView{g.b, g.ldb, g.trans_b, dtype_bytes(g.input)}, p0, 0);
    // Row j of the panel is column j of op(B): contiguous along k when B is not transposed.
    const bool rows_contiguous = g.trans_b;
    kernels.pack_b(chunk.data, chunk.ld, rows_contiguous, g.n, kc, g.n, b_chunk);
}

// Bytes of C per block of rows of the sweep: every chunk of k steps reads and
// writes the block's C, which must stay in L2 beside the chunk of A streaming
// past it. Two figures, each measured where it applies.
// With A in a cache: a quarter of a 2 MiB L2 (the Intel VM of earlier notes):
// all 4096 rows up to 32 columns, 2048 at 64. Measured there, 1 thread, 4096 x
// n x 4096 fp32, against one block of all rows (GFLOP/s, alternating, noisy
// host): n = 32 136-138 / 142-148, 48 130-135 / 137-141, 64 130-132 / 136, 2
// threads 271-281 / 282-301; fp16 n = 64 even. 256 KiB blocks cost fp16 n =
// 64 8-10% (shorter runs of each column per chunk). On the Zen 5 VM (1 MiB
// L2) the smaller blocks below measured 0.99 with A in L3 (2048 x 16 x 512
// fp32 and bf16), so a cached A keeps this figure.
// With A from memory: 64 KiB, and at least 1024 rows. On the Zen 5 VM the
// larger blocks left the sweep 7-15% short at 16-32 columns, where a chunk is
// 16 or 32 k steps and C is read and written every chunk; by the measurements
// C falls out of L2 beside A's stream there, though the why is not settled
// (256 KiB of C beside 256 KiB of A per chunk at n = 16 would fit 1 MiB if
// nothing else came in; the L2 prefetcher runs ahead down A's columns).
// Paired against 512 KiB (`ridge-ab OLD NEW M N K 9 [TRANS [TYPE]]`, 1
// thread unless said, in a slow spell of a noisy host): 4096 x n x 4096 n =
// 4 1.044, 8 1.021, 16 1.145, 24 1.060, 32 1.094 (malloc'ed, OFFSET=4:
// 1.073), 48 1.031, 64 1.018; fp16 n = 16 / 32 1.030 / 1.005, bf16 n = 8 / 16
// 1.027 / 1.037; 8192 x 32 x 8192 1.113; the sweep on C^T 16 / 64 x 4096 x
// 4096 NT 1.128 / 1.023; 2 threads n = 16 / 32 / 64 1.050 / 1.172 / 1.000;
// 4000 x 16 / 64 x 4000 (no power-of-two stride) 0.998 / 1.014. The floor of
// rows: 64 KiB alone is 341 rows at n = 48, 0.97; 1024 rows there 1.03. 32
// KiB measured 0.97 of 64 at n = 16 and 0.98 at n = 8.
constexpr int64_t kCBlockBytesACached = 512 * 1024;
constexpr int64_t kCBlockBytesAFromMemory = 64 * 1024;
constexpr int64_t kMinBlockRowsAFromMemory = 1024;

// A block's C through a scratch copy. Every chunk of k steps reads and writes
// the block's C, a tile (MR rows x up to NR columns) at a time. When ldc is a
// multiple of 256 floats (1 KiB), the columns of a tile all start within 4 of
// L1's 64 sets (at ldc = 4096, the hidden size of a decoding step, on the same
// one), so a tile's lines evict each other and the tiles of A: the skinny
// kernel's C update measured ~12% slower in L1 at ldc = 4096 than off the power
// of two. The scratch holds the block's rows with a column stride of whole
// lines plus two: a tile column's 32 rows are two lines, so a tile's columns
// fall on disjoint sets (one line past measured 0.99-1.03 of that, three 0.99-1.01;
// the tall tile's 48 rows are three lines, so neighbouring columns share a set,
// as they did when its gains were measured: see uses_tall_tiles).
// C is copied in (when beta reads it) and out once per block; the kernel does
// the same arithmetic on the copy, so C is bit for bit what the kernel writes
// in place. Only from kMinChunksForScratch chunks on, where the two copies
// weigh little against the chunks' updates.
// Measured, 1 thread, paired against in place (ridge-ab OLD NEW 4096 n 4096 21),
// ldc = 4096: n = 8 1.005, 16 1.020, 24 1.063, 32 1.030, 48 1.023, 64 1.042;
// malloc'ed matrices (OFFSET=4) 1.007, 1.026, 1.049, 1.020, 1.025, 1.021; NT
// n = 64 1.033; bf16 A n = 32 1.019, 64 1.015; fp16 A n = 16 1.003, 64 1.010;
// 8192 x 32 x 8192 1.054; 2 threads n = 16 1.069, 32 1.067, 64 1.024.
constexpr int64_t kMinChunksForScratch = 8;
constexpr int64_t kFloatsPerLine = 16;

// Where the kernel updates a block of rows [row0, row0 + rows) of C.
struct BlockOfC {
    float* c;     // row0 of the block: in C itself, or in the scratch
    int64_t ldc;
    bool copied;  // c is the scratch: copy the block back into C at the end
};

// Where the sweep's C lives: g.c itself, or (transpose non-null) the caller's
// C holds C^T (gemm_skinny_m_trans_b): C(i, j) at g.c[j + i*ldc]. Then every
// block goes through the scratch, gathered in and scattered out by the
// kernel's transposing copy.
struct SweepOutput {
    TransposeF32 transpose = nullptr;
    bool c_transposed() const { return transpose != nullptr; }
};

// The scratch's column stride for `rows` rows placed `shift` floats into a
// line: whole lines, plus two (see above).
int64_t scratch_ld(int64_t rows, int64_t shift) {
    return (rows + shift + kFloatsPerLine - 1) / kFloatsPerLine * kFloatsPerLine + 2 * kFloatsPerLine;
}

// The scratch for a block, or C itself when there is none. `aligned_row`: the
// block's first row (from row0) whose tile starts a line of A (RowTiles); the
// scratch puts that row at the start of a line, as the tiles of C are when C
// has A's alignment, so no tile of the copy straddles one line more.
BlockOfC block_of_c(const GemmArgs& g, float* scratch, int64_t row0, int64_t rows, int64_t aligned_row,
                    SweepOutput out) {
    if (scratch == nullptr) return {g.c + row0, g.ldc, false};
    const int64_t shift = (kFloatsPerLine - aligned_row % kFloatsPerLine) % kFloatsPerLine;
    const int64_t ld = scratch_ld(rows, shift);
    float* c = scratch + shift;
    if (g.beta == 0.0f) return {c, ld, true};  // the kernel never reads C, and a NaN in it must not come back
    if (out.c_transposed()) {  // row r of the block is column row0 + r of the caller's C: n contiguous floats
        out.transpose(g.n, rows, g.c + row0 * g.ldc, g.ldc, c, ld);
    } else {
        for (int64_t j = 0; j < g.n; ++j) std::memcpy(c + j * ld, g.c + row0 + j * g.ldc, size_t(rows) * sizeof(float));
    }
    return {c, ld, true};
}

void finish_block_of_c(const GemmArgs& g, const BlockOfC& block, int64_t row0, int64_t rows, SweepOutput out) {
    if (!block.copied) return;
    if (out.c_transposed()) {
        out.transpose(rows, g.n, block.c, block.ldc, g.c + row0 * g.ldc, g.ldc);
        return;
    }
    for (int64_t j = 0; j < g.n; ++j)
        std::memcpy(g.c + row0 + j * g.ldc, block.c + j * block.ldc, size_t(rows) * sizeof(float));
}

// Floats of scratch for blocks of up to `block_rows` rows: the widest stride
// block_of_c gives one (shifted by up to a line less one float) for each
// column; the shift and the last column's rows fit in the last stride.
int64_t c_scratch_floats(const GemmArgs& g, int64_t block_rows) {
    return scratch_ld(block_rows, kFloatsPerLine - 1) * g.n;
}

// Whether a sweep in chunks of `chunk` columns updates C through the scratch
// (skinny_uses_c_scratch).
bool uses_c_scratch(const GemmArgs& g, int64_t chunk) {
    return g.ldc % 256 == 0 && (g.k + chunk - 1) / chunk >= kMinChunksForScratch;
}

// The calling thread's scratch for sweep_rows, or null: not worth it, or no
// memory (then C is updated in place, as it would be without one; a
// transposed C has no such fallback: see gemm_skinny_m_trans_b).
float* reserve_c_scratch(const GemmArgs& g, int64_t block_rows, int64_t chunk, SweepOutput out) {
    if (!out.c_transposed() && !uses_c_scratch(g, chunk)) return nullptr;
    Workspace* ws = this_thread_workspace();
    return ws == nullptr ? nullptr : ws->packed_a.reserve(size_t(c_scratch_floats(g, block_rows)));
}

// The sweep's B, chunk by chunk (copy_b_chunk), in the calling thread's
// buffer: one chunk (up to 256 KiB: kCachedChunkColumns x kSkinnyMaxN, so not
// on the stack), copied again for every block of rows. A team's thread instead
// holds all of op(B) as fp32 where it fits kWholeBCopyMaxBytes, and copies each
// chunk once, the first time one of its pieces of rows reaches it (a piece
// visits every chunk in order); its later pieces read that copy. A team's
// pieces are short (a share's eighths: ClaimedShares below), and each piece
// copying every chunk again took 12% of a 2-thread 448 x 32 x 2048 call (perf,
// cpu-clock). Measured against that (`RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N
// K 9`): 2 threads 448 x 32 x 2048 1.110, 384 x 48 x 2048 1.096, 1000 x 32 x
// 1000 1.006, 4096 x 16 / 32 x 4096 0.992 / 0.997. One thread keeps the one
// chunk: the whole copy there, each chunk written to lines of its own, ran
// 0.970 / 0.976 at 448 x 32 x 2048 / 384 x 48 x 2048 (one block of rows) and
// 0.988 at 4096 x 16 x 4096 (four).
constexpr int64_t kWholeBCopyMaxBytes = 512 * 1024;
bool copies_whole_b(const GemmArgs& g, int team) { return team > 1 && 4 * g.k * g.n <= kWholeBCopyMaxBytes; }

float* reserve_b_copy(const GemmArgs& g, int64_t NR, int64_t chunk, int team) {
    Workspace* ws = this_thread_workspace();
    const int64_t one = chunk_copy_floats(column_groups(g.n, NR), chunk);
    const int64_t floats = copies_whole_b(g, team) ? (g.k + chunk - 1) / chunk * one : one;
    return ws == nullptr ? nullptr : ws->packed_b.reserve(size_t(floats));
}

struct BChunks {
    float* buffer;
    bool whole;
    int64_t copied = 0;  // whole: chunks [0, copied) are in the buffer
    // B's chunk of kc k steps from p0 (chunk k steps apart), copied if not yet there.
    const float* at(const GemmArgs& g, const SweepKernels& kernels, int64_t p0, int64_t kc, int64_t chunk) {
        if (!whole) {
            copy_b_chunk(g, kernels, p0, kc, buffer);
            return buffer;
        }
        float* copy = buffer + p0 / chunk * chunk_copy_floats(column_groups(g.n, kernels.NR), chunk);
        if (p0 / chunk == copied) {
            copy_b_chunk(g, kernels, p0, kc, copy);
            ++copied;
        }
        return copy;
    }
};

// Tiles [tile_first, tile_last) of `tiles`, in blocks of rows: for each block,
// every chunk of k steps, each tile of the block. The kernel prefetches the
// tile prefetch_tiles_ahead further on in that order (past a block's last
// tile, the same block's first tiles of the next chunk), its column groups
// sharing that prefetch where spread_prefetch says (group_prefetch).
void sweep_rows(const GemmArgs& g, const SweepKernels& kernels, const RowTiles& tiles, int64_t tile_first,
                int64_t tile_last, int64_t chunk, bool a_from_memory, bool spread_prefetch, SweepOutput out,
                float* c_scratch, BChunks& b_chunks) {
    const char* a = static_cast<const char*>(g.a);  // A's elements, of the input type
    const int64_t bytes = dtype_bytes(g.input);
    const ColumnGroups groups = column_groups(g.n, kernels.NR);
    const int64_t block_tiles = skinny_tiles_per_block(tile_last - tile_first, g.n, kernels.MR, a_from_memory);
    const int64_t tiles_ahead = prefetch_tiles_ahead(g.n, kernels.MR, chunk, bytes);
    // The tile t of A (its MR rows) in the chunk starting at column p0.
    auto tile_of_a = [&](int64_t p0, int64_t t) { return a + (p0 * g.lda + tiles.first(t)) * bytes; };
    for (int64_t block_first = tile_first; block_first < tile_last; block_first += block_tiles) {
        const int64_t block_last = std::min(tile_last, block_first + block_tiles);
        const int64_t block_count = block_last - block_first;
        const int64_t row0 = tiles.first(block_first), rows = tiles.first(block_last) - row0;
        // A block's tiles after its first start a line of A (a first head tile may not).
        const int64_t aligned_row = (block_count > 1 ? tiles.first(block_first + 1) : row0) - row0;
        const BlockOfC block = block_of_c(g, c_scratch, row0, rows, aligned_row, out);
        for (int64_t p0 = 0; p0 < g.k; p0 += chunk) {
            const int64_t kc = std::min(chunk, g.k - p0);
            const float beta = p0 == 0 ? g.beta : 1.0f;  // beta applies once, with the first chunk
            const float* b_chunk = b_chunks.at(g, kernels, p0, kc, chunk);
            for (int64_t t = block_first; t < block_last; ++t) {
                const int64_t i0 = tiles.first(t), mr = tiles.first(t + 1) - i0;
                // The tile tiles_ahead on: in this chunk, or wrapped into the next one.
                const int64_t ahead = t - block_first + tiles_ahead;
                const int64_t ahead_p0 = p0 + chunk * (ahead / block_count);
                const char* ahead_tile =
                    ahead_p0 < g.k ? tile_of_a(ahead_p0, block_first + ahead % block_count) : nullptr;
                for (int64_t grp = 0; grp < groups.count; ++grp) {
                    const int64_t j0 = groups.first(grp);
                    const GroupOfB b = group_of_b(g, groups, b_chunk, kc, grp);
                    kernels.tile(mr, groups.width(grp), kc, g.alpha, tile_of_a(p0, t), g.lda, b.b, b.step, beta,
                                 block.c + (i0 - row0) + j0 * block.ldc, block.ldc,
                                 group_prefetch(ahead_tile, grp, groups.count, kc, g.lda * bytes, spread_prefetch));
                }
            }
        }
        finish_block_of_c(g, block, row0, rows, out);
    }
}

}  // namespace

int64_t skinny_chunk_columns(int64_t n, Dtype input, bool a_from_memory, int64_t lda, bool tall_tiles) {
    const bool f32_from_memory = a_from_memory && dtype_bytes(input) == 4;
    if (f32_from_memory && columns_4_kib_apart(lda, input) && n <= kPowerOfTwoStrideMaxColumns)
        return kPowerOfTwoStrideChunk;
    if (n < kMemoryBoundColumns) return 16;
    if (!a_from_memory && columns_on_few_l1_sets(lda, input)) return kMaxChunkColumns;
    if (!a_from_memory) return tall_tiles && dtype_bytes(input) == 4 ? kCachedTallChunkColumnsF32 : kCachedChunkColumns;
    if (f32_from_memory && n <= kFewStreamsColumnsF32) return 16;
    if (f32_from_memory && tall_tiles)
        return columns_on_few_l1_sets(lda, input) ? kMaxChunkColumns : kTallChunkColumnsFromMemory;
    if (f32_from_memory && n <= 32) return 32;
    return kMaxChunkColumns;
}

bool skinny_uses_c_scratch(const GemmArgs& g, const GemmKernel& ker, bool a_from_memory) {
    return uses_c_scratch(g, sweep_chunk(g, ker, a_from_memory));
}

int64_t skinny_block_rows(int64_t n, int64_t MR, bool a_from_memory) {
    const int64_t c_bytes_per_row = n * int64_t(sizeof(float));
    const int64_t rows = a_from_memory
                             ? std::max(kMinBlockRowsAFromMemory, kCBlockBytesAFromMemory / c_bytes_per_row)
                             : kCBlockBytesACached / c_bytes_per_row;
    return MR * std::max<int64_t>(1, rows / MR);
}

// Tiles per block where a sweep covers `tiles` tiles: equal blocks, as few as
// allow each at most the nominal block (skinny_block_rows, in tiles) plus an
// eighth (equal_block, gemm.h). Nominal blocks would leave a last block of the
// few tiles over: a malloc'ed A (16 bytes into a line) gets a head tile
// (RowTiles), so 4096 rows are 129 tiles, 64 + 64 + 1 at 64 columns of C, and
// a block of one tile runs every chunk of k for 32 rows (on two threads,
// 64 + 1 for the second). Each tile of C still sees the chunks in the same
// order: C is bit for bit the same.
// Measured on the Zen 5 VM against the previous build, matrices as malloc
// gives them (`OFFSET=4 ridge-ab OLD NEW 4096 n 4096 11`, 1 thread): n = 64
// 1.028-1.030, 48 1.018, 32 1.033 (128 + 1 tiles at 32 columns), fp16 A n = 64
// 1.026, 32 x 4096 x 4096 NT (the sweep on C^T) 1.018, 2 threads n = 64 1.034;
// where the blocks come out as before: n = 16 (one block) 0.992-0.999, 128
// 0.992, aligned matrices n = 64 1.011.
int64_t skinny_largest_block_rows(int64_t n, int64_t MR, bool a_from_memory) {
    return MR * largest_equal_block(skinny_block_rows(n, MR, a_from_memory) / MR);
}

int64_t skinny_tiles_per_block(int64_t tiles, int64_t n, int64_t MR, bool a_from_memory) {
    return equal_block(tiles, skinny_block_rows(n, MR, a_from_memory) / MR);
}

namespace {

// A team's sweep in pieces claimed a piece at a time (ClaimedShares: each
// thread its own share of the rows first, then what is left of the others').
// Split in advance, one slower core held up the whole call: timed thread by
// thread (2000 x 32 x 2000, 2 threads, the tiles split in half), the thread
// on one vCPU took 1.06-1.10 ms and the other 0.69-0.72 ms, whichever thread
// ran there (the second core of this VM is often slower for a while). Each
// share is four pieces, a half, a quarter and two eighths of it (in tiles), so
// that most of the sweep still runs in long blocks of rows (sweep_rows splits
// a piece into blocks as the one-thread sweep does; shorter blocks cost the
// column runs of an A from memory: skinny_block_rows) while the faster core
// can still take over the last pieces of a slower one. Measured against the
// split in advance (`RIDGE_NUM_THREADS=2 ridge-ab OLD NEW M N K 9`, two or
// three runs): 2000 x 32 x 2000 1.22-1.24, 4096 x 32 x 4096 1.10-1.11, 1000 x
// 32 x 1000 1.12-1.13, 8192 x 48 x 1024 1.05-1.06, 4096 x 16 x 4096
// 1.00-1.03, 4000 x 64 x 4000 1.02, 704 x 96 x 5000 0.98-0.99, 2048 x 16 x 512
// (A cached) 0.99-1.01. Four equal pieces a share instead: 4096 x 32 x 4096
// 0.97-1.23 from run to run, 2048 x 16 x 512 0.96-0.98.
constexpr int kSweepPiecesPerShare = 4;
// Where piece j of a share ends, in eighths of the share's tiles.
constexpr int64_t kPieceEndsInEighths[kSweepPiecesPerShare + 1] = {0, 4, 6, 7, 8};

// The sweep over all rows of g, split between threads in pieces of tiles of
// rows. With a transposed C every thread needs its scratch: all reserve before any writes C.
ridge_status sweep(const GemmArgs& g, const GemmKernel& ker, int threads, bool a_from_memory, SweepOutput out) {
    // B's chunks go through the kernel's packer as fp32 (copy_b_chunk); dispatch never sends another here.
    if (ker.packed_bytes != 4 || ker.k_group != 1) return RIDGE_INVALID_ARGUMENT;
    const SweepKernels kernels = sweep_kernels(g, ker, a_from_memory);
    const RowTiles tiles = row_tiles(g, kernels.MR);
    const int64_t count = tiles.count();
    const int64_t chunk = sweep_chunk(g, ker, a_from_memory);
    const int64_t block_rows = skinny_largest_block_rows(g.n, kernels.MR, a_from_memory);  // what the scratch holds
    const int team = count < 2 ? 1 : threads;
    // Each thread's copy of B and C scratch: both from its workspace, which the
    // sweep then finds reserved (reserve_b_copy returns the same buffer).
    auto reserve = [&](float*& scratch) {
        scratch = reserve_c_scratch(g, block_rows, chunk, out);
        return (!out.c_transposed() || scratch != nullptr) && reserve_b_copy(g, kernels.NR, chunk, team) != nullptr;
    };
    if (team == 1)  // the blocks of skinny_tiles_per_block over all rows
        return run_once_every_thread_reserved(1, reserve, [&](float* scratch, int64_t, int64_t) {
            BChunks b_chunks{reserve_b_copy(g, kernels.NR, chunk, team), false};
            sweep_rows(g, kernels, tiles, 0, count, chunk, a_from_memory, a_from_memory, out, scratch, b_chunks);
        });
    ClaimedShares claims(int64_t(team) * kSweepPiecesPerShare, team);
    return run_once_every_thread_reserved(team, reserve, [&](float* scratch, int64_t t, int64_t) {
        BChunks b_chunks{reserve_b_copy(g, kernels.NR, chunk, team), copies_whole_b(g, team)};
        claims.run_claimed(int(t), [&](int64_t piece) {
            const int64_t share = piece / kSweepPiecesPerShare, j = piece % kSweepPiecesPerShare;
            const int64_t share_first = count * share / team, share_tiles = count * (share + 1) / team - share_first;
            const int64_t first = share_first + share_tiles * kPieceEndsInEighths[j] / 8;
            const int64_t last = share_first + share_tiles * kPieceEndsInEighths[j + 1] / 8;
            if (first < last)
                // A team keeps the first group's prefetch (group_prefetch: measured no better spread).
                sweep_rows(g, kernels, tiles, first, last, chunk, a_from_memory, false, out, scratch, b_chunks);
        });
    });
}

// C = alpha * op(A) * B^T + beta * C with few rows as C^T = alpha * B * op(A)^T
// + beta * C^T: few columns, B (untransposed there) read in place.
GemmArgs transposed_problem(const GemmArgs& g) {
    GemmArgs t = g;
    t.m = g.n, t.n = g.m;
    t.a = g.b, t.trans_a = !g.trans_b, t.lda = g.ldb;  // A' = op(B)^T = B
    t.b = g.a, t.trans_b = !g.trans_a, t.ldb = g.lda;  // op(B') = op(A)^T
    return t;
}

}  // namespace

int64_t skinny_sweep_chunk(const GemmArgs& g, const GemmKernel& ker, bool a_from_memory, bool on_c_transposed) {
    return sweep_chunk(on_c_transposed ? transposed_problem(g) : g, ker, a_from_memory);
}

ridge_status gemm_skinny_n(const GemmArgs& g, const GemmKernel& ker, int threads, bool a_from_memory) {
    return sweep(g, ker, threads, a_from_memory, SweepOutput{});
}

ridge_status gemm_skinny_m_trans_b(const GemmArgs& g, const GemmKernel& ker, int threads, bool b_from_memory) {
    if (ker.transpose_c == nullptr) return RIDGE_INVALID_ARGUMENT;  // dispatch never sends such a kernel here
    return sweep(transposed_problem(g), ker, threads, b_from_memory, SweepOutput{ker.transpose_c});
}

}  // namespace ridge
