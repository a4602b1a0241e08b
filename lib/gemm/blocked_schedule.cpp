// The blocked path's schedule (make_schedule): how a team splits the rows of C
// and the micro-panels of B, the blocks of A, the order of the loops (the k
// steps outside jc, the ir loop outside jr) and what is packed or read in place
// (B per micro-panel or from its source, A in place or packed by the first
// micro-panel's tiles), each rule with what it was measured on.
#include "gemm/blocked_schedule.h"

#include <algorithm>
#include <cstdint>

#include "util/int_math.h"

namespace ridge {
namespace {

// Whether each KC x NR micro-panel of B is packed just before its ir loop, into
// one micro-panel buffer that stays in L1, rather than the whole KC x NC panel
// up front. The whole panel (1 MiB at 1024^3) goes to a buffer that no longer
// fits L2 beside the block of A, so every store of the packing fetches its line
// from L3 first and writes it back later; one micro-panel buffer is written
// where it is read, in L1. Only when nothing reads the panel again (one thread,
// one block of A per KC step: m <= MC) and op(B) is not transposed, so that a
// micro-panel is NR columns of B, each a sequential run of kc elements.
// Transposed, it is kc short runs a row of B apart (a page each for large
// ldb), which no prefetcher follows; the whole panel, packed chunk by chunk
// across all micro-panels, reads each row of B sequentially (pack.cpp).
// Measured on one thread, one process alternating both (medians of 20 paired
// ratios, C bit for bit the same): 1024^3 1.016-1.028, TN 1.019, fp16 inputs
// 1.015, 768^3 1.024, 2 threads at 1024^3 (each its own columns) 1.010; NT
// 0.960 and TT 0.968, hence not for op(B) transposed. Packing into the whole
// panel lazily, micro-panel by micro-panel, gained nothing (1.003): the gain is
// the buffer in L1. Prefetching the next micro-panel's source during the ir
// loop gained nothing either.
bool packs_b_per_micro_panel(int threads, int64_t blocks_per_group, bool trans_b) {
    return threads == 1 && blocks_per_group == 1 && !trans_b;
}

// Whether, with B packed per micro-panel, the first tile of each micro-panel
// runs with B read where the caller keeps it, through the kernel's unpacked
// small-problem kernel (the same FMAs in the same order as the packed kernel,
// so C is bit for bit the same), before the micro-panel is packed for the
// tiles after it. Packing first, a micro-panel read from memory has nothing
// to overlap it; this way the first tile's FMAs run while its lines arrive,
// and packing then reads them from L1 or L2. Only when op(B) is larger than
// the last-level cache, or than each thread's share of it in a team
// (GemmPlan::b_beyond_cache_share), so that its micro-panels do come from
// memory or compete for the cache: from a cache the small kernel costs more
// than packing first (128 x 512 x 512: 0.979 with it, 0.993 without, each
// against the same previous build). fp32 B only (the small kernel does not convert). Measured
// against the previous build (`ridge-ab OLD NEW M N K ROUNDS`, 1 thread): B of
// 64 MiB 64 x 4096 x 4096 1.028-1.064, 128 x 4096 x 4096 1.029-1.046, 256 x
// 4096 x 4096 1.016-1.018; B of 16 MiB 256 x 2048 x 2048 1.016-1.019, 128 x
// 2048 x 2048 1.008, 512 x 2048 x 2048 1.001 (the gain shrinks as the tiles
// per micro-panel grow); 1536^3 0.994-1.002; 2 threads 256 x 4096 x 4096
// 1.021, 128 x 4096 x 4096 1.041. Two builds differ by up to 1% from code
// layout alone (a build with one unused function added read 0.988-0.990 at
// 256^3), so smaller differences between builds mean nothing.
// Tried beside it: the first tile packing B itself (a kernel storing each
// broadcast value, 12 scalar stores per k step) no better than packing after
// it, 0.996 with 64-byte masked stores; the same overlap for a panel packed
// lazily, micro-panel by micro-panel, in the first of several blocks of A
// (m > MC): 0.991-1.003 at 2048^3 and 3000^3, switched call by call in one
// experiment build; the first micro-panel reading A in place the same way
// 0.96 (each k step of A a page apart, which no prefetcher follows).
bool first_tile_reads_b_source(const GemmArgs& g, const GemmPlan& plan, bool b_per_micro_panel) {
    const GemmKernel& ker = *plan.kernel;
    return b_per_micro_panel && plan.b_beyond_cache_share && g.input == Dtype::f32 && ker.small_f32 != nullptr &&
           ker.small_kernel_max_volume == 0 && ker.packed_bytes == 4;
}

// Whether, where the first tile of each micro-panel reads B in place
// (first_tile_reads_b_source), every tile does, so that B is not packed at
// all (a micro-panel of fewer than NR columns still is): with only a few
// tiles per micro-panel, packing costs more than the small kernel loses to
// reading B's columns where they are (4 KiB runs a column apart at KC 1024,
// blocking_for_thin_m). Up to 10 tiles (320 rows at MR 32). One process
// switching it call by call (1 thread, medians of 9 paired ratios; the
// thin-m KC of 1024 both ways): 64 x 4096 x 4096 1.151, 128 x 4096 x 4096
// 1.070 (2 threads 1.079), 256 x 4096 x 4096 1.022, 128 x 2048 x 2048 1.078,
// 128 x 1536 x 1536 1.078; past 8 tiles it lost then: 384 x 4096 x 4096
// 0.980, 512 x 4096 x 4096 0.982, 768 x 4096 x 4096 0.958, 1024 x 4096 x 4096
// 0.969. With the partial last row in place too and the 16-row edge tile,
// limits of 8 and 12 tiles compared (two builds, ridge-ab, 11 rounds): 288
// rows (9 tiles) 1.009, 300 rows 1.019 (x 2048 x 2048 1.006), 352 rows 0.991,
// 384 rows 0.983. KC 2048 instead (a profile) measured 1.013 at 128 rows,
// 0.931 at 256.
constexpr int64_t kMaxTilesReadingBSource = 10;
bool all_tiles_read_b_source(bool first_tile_reads_b, int64_t mc, int64_t MR) {
    return first_tile_reads_b && ceil_div(mc, MR) <= kMaxTilesReadingBSource;
}

// Whether, with B packed per micro-panel and not read in place, the first tile
// of each micro-panel packs it (GemmKernel::ukr_packing_b: the kernel reads
// the micro-panel's 12 columns where the caller keeps them, 16 k steps at a
// time, and stores them packed just before those steps run) instead of a
// packing pass before the tile. The pass is a 16 x 16 transpose per 16 k
// steps of 12 columns with no FMA beside it: 4.3% of 256^3's samples (perf,
// cpu-clock) and as slow with half its shuffles (in-lane 4 x 4 transposes
// stored by 16-byte lanes: 1.001-1.006 at 256^3-1024^3) or a prefetch ahead
// of it, so the time is in waiting for B's lines from L2, which FMAs can
// cover. Not in the first micro-panel where its tiles pack the block of A
// (packs_a_in_first_micro_panel), which keeps the pass. Each tile runs the
// same FMAs on the same packed values: C is bit for bit the same. Measured on
// the Intel VM against the build before it (`RIDGE_NUM_THREADS=T ridge-ab OLD
// NEW M N K 9-15`): 1 thread 256^3 1.009-1.014, 320^3 1.004, 512^3 1.006,
// 768^3 1.019, 1024^3 1.020, 128 x 1024 x 512 1.017-1.023, 600 x 1200 x 1200
// 1.025, 1000^3 0.997; 2 threads (column slices) 512^3 1.027, 1024^3 1.010.
// The twin's tile alone took 18% longer than a packed tile at 256^3 (perf:
// 14.1% of the samples for 11.9% of the FMAs), against the pass's 4.3%; a
// prefetch of B's columns 1-4 blocks ahead in the twin gained nothing.
bool packs_b_in_first_tile(const GemmArgs& g, const GemmPlan& plan, const Schedule& s) {
    return s.b_per_micro_panel && !s.first_tile_reads_b && !s.a_in_place && !plan.stream_c &&
           g.input == Dtype::f32 && plan.kernel->ukr_packing_b != nullptr;
}

// Whether, with B packed per micro-panel and op(B) within L2, every tile of
// each micro-panel reads B in place through the small kernel (as the tiles
// of all_tiles_read_b_source do with B from memory), so that B is not packed
// at all, up to 16 tiles (512 rows at MR 32): in the KC steps that do not
// read C (beta = 0 on the first), as the small kernel does not prefetch its
// tile of C the way the packed kernel does near its end; and not where B's
// columns share L1 sets (b_columns_share_l1_sets: a micro-panel's 12 columns
// would fill all 12 ways of each set they use). The micro-panel whose tiles
// pack the block of A (packs_a_in_first_micro_panel) still packs its B first,
// and in the steps that read C the first tile packs B (packs_b_in_first_tile).
// The small kernel runs the packed kernel's FMAs in the same order: C is bit
// for bit the same. Measured on the Intel VM (`RIDGE_NUM_THREADS=1 ridge-ab
// OLD NEW M N K 11`, experiment builds switching it), every step in place
// against the first tile packing B (packs_b_in_first_tile): 256^3 1.025,
// 320^3 1.013, 384^3 1.021, 448^3 1.016, 512^3 1.012, 128 x 1024 x 512 1.069
// (op(B) 2 MiB, L2's size). Past 16 tiles it lost: 576^3 0.978, 600 x 1200 x
// 1200 1.002, 640^3 0.979, 768^3 0.990, 1024^3 0.980; with op(B) beyond L2
// (from L3 here) 256 x 1000 x 1000 0.996, 480 x 1000 x 1000 0.987; and with
// several KC steps 512 x 256 x 1000 0.984, x 2048 0.971 (ldb 8 KiB). Only
// the steps not reading C in place, against every step: 512 x 256 x 2048
// 1.013, 512 x 256 x 1000 1.006, 300 x 300 x 1000 1.001, 512^3 1.000, 384^3
// 1.003.
constexpr int64_t kMaxTilesReadingBFromL2 = 16;
bool all_tiles_read_b_from_l2(const GemmArgs& g, const GemmPlan& plan, const Schedule& s) {
    const GemmKernel& ker = *plan.kernel;
    return s.b_per_micro_panel && plan.b_within_l2 && ceil_div(s.mc, ker.MR) <= kMaxTilesReadingBFromL2 &&
           g.input == Dtype::f32 && ker.small_f32 != nullptr && ker.small_kernel_max_volume == 0 &&
           ker.packed_bytes == 4 && !plan.stream_c && !s.a_in_place && !b_columns_share_l1_sets(g, ker);
}

// Whether the k steps run outside the jc loop (pc, then jc, then the ir/jr
// loops: run_k_steps_outside_jc) with B panels sized for L2 rather than L3
// (GemmPlan::b_panel_columns_in_l2). For one block of A (one thread, m <= MC)
// and op(B) transposed, where B cannot be packed per micro-panel
// (packs_b_per_micro_panel): the whole KC x NC panel (4 MiB at n = 4096) goes
// to a buffer in L3, every store of the packing fetching its line first, and
// the few tiles of each micro-panel read it back from there. A panel that
// fits L2 beside the block of A keeps both in L2; in the five loops' order
// every extra jc block would pack all of A again, so the k steps go outside:
// A is packed once per k step, each of the KC-deep B panels after it. Each
// tile of C still sees its k steps in the same order, through the same packed
// panels: C is bit for bit what the five loops give. Measured, 1 thread, one
// process switching the order (and the panel of 768 columns) call by call
// against the five loops (medians of 9 paired ratios): NT 64 x 4096 x 4096
// 1.204, 128 x 4096 x 4096 1.106-1.113, 256 x 4096 x 4096 1.044, 512 x 4096 x
// 4096 1.015, 896 x 4096 x 4096 1.005, 1536 x 4096 x 4096 1.011, 128 x 2048 x
// 2048 1.072, 1024 x 2048 x 2048 1.005, B in cache 256 x 1024 x 1024 1.002,
// 128 x 768 x 768 1.027. The smaller panels alone, in the five loops' order,
// lost wherever A is more than a few rows (256 x 4096 x 4096 0.920, 1024 x
// 4096 x 4096 0.972): A packed again per jc block.
bool runs_k_steps_outside_jc(int threads, int64_t blocks_per_group, bool trans_b, const GemmPlan& plan) {
    return threads == 1 && blocks_per_group == 1 && trans_b && plan.b_panel_columns_in_l2 > 0;
}

// Whether one thread (alone, or a team's slice) packs each KC step's op(A),
// all of its m rows, as one block where m is more than one block of MC rows,
// and runs the k steps outside the jc loop over B panels sized for L2
// (run_k_steps_outside_jc): the order of oneDNN's f32 GEMM driver (blocks of
// up to 9984 rows of A, B panels of 384 columns). The block of A sits in L3
// (up to a quarter of the core's share: GemmPlan::a_rows_in_l3) and streams
// through L2 once per B micro-panel, 128 bytes of A per 32 x 12 FMAs (about
// 19 GB/s at the FMA peak); the B panel stays in L2; and a KC step updates C
// one B panel's columns at a time (300 at KC 320 here), where the five loops
// sweep all n columns of C for every block of A. The gain is largest where
// each column of C is a page of its own (ldc a multiple of 1024 floats), which
// points at C's TLB misses: n columns are more pages than the second-level
// TLB holds beside A and B (the presumed mechanism; the figures are what was
// measured). Each tile of C still sees its k steps in order through the same
// kernel: C is bit for bit what the five loops give. Measured, one process
// switching the two call by call (`RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K
// ROUNDS [TRANS [TYPE]]`, medians of the paired ratios, an experiment build):
// 1024^3 1.007-1.027 and 2048^3 1.021-1.023 over three processes each; TN /
// NT / TT 1.002 / 1.014 / 1.022 at 1024^3, 1.024 / 1.019 / 1.019 at 2048^3;
// fp16 inputs 2048^3 1.009, bf16 (its own kernel) 0.996 (the kept build:
// bf16 1.011-1.014, fp16 1.012, RIDGE_ISA=avx2 1.013-1.015); 1536^3 1.005, 2000^3
// 1.001, 3000^3 1.009, 1000^3 1.002, 700^3 0.997; 1024 x 4096 x 1024 1.029,
// 1024 x 1024 x 4096 1.011, 4096 x 1024 x 1024 1.005, 2048 x 2048 x 256 1.019,
// 2048 x 300 x 2048 1.020, 3000 x 200 x 3000 1.041, 1200 x 1200 x 300 1.015;
// 2 threads (column or row slices) 1024^3 1.014, 2048^3 1.003, 1024 x 2048 x
// 1024 1.016, 2048 x 1024 x 1024 1.000. With it, KC 256 / 384 / 448 ran
// 0.989-1.009 against 320, and B panels of 2/8 to 5/8 of L2 0.991-1.010
// against 3/8. Where m is at most MC (one block either way), the five loops'
// order with B packed per micro-panel stays ahead (512 x 2048 x 2048 0.992,
// 600 x 1200 x 1200 0.988 with this order).
// On the Zen 4, the tiles of a B panel run A panel by A panel instead (the ir
// loop outside jr over the packed block: each 40 KiB A panel read from L3
// once per B panel, not once per micro-panel; B's micro-panels from L2) ran
// 0.999 at 2048^3 and 1.001 at 1024^3 (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW
// N N N 11`, an experiment build): A's stream from L3 is already hidden.
// All of that on the Zen 4. On the Zen 5 VM (1 MiB L2, the library's L3 the
// 4 MiB fallback: one block up to 1024 rows at KC 256) the five loops' blocks
// ran faster (an experiment build switching it off, `RIDGE_NUM_THREADS=1
// ridge-ab OLD NEW M N K 15`): 1024^3 1.012 / 1.029, 1000^3 1.035, 960^3
// 1.026, 768^3 1.015, 1024 x 2048 x 1024 1.035, TN 1024^3 1.031; 640^3 1.004,
// 2 threads 1024^3 1.006; the kept build with a profile turning it off against
// the same profile without (`PROFILE_A=P PROFILE_B=P_OFF ... ridge-ab A.so
// B.so M N K 15`): 1024^3 1.013 / 1.016, 1000^3 1.009. So it is
// the machine's: on unless a profile turns it off (RuntimeConfig::
// blocked_one_block_of_a; ridge-tune times both: tune/one_block_of_a.cpp).
// Not for a block of all rows of less than one and a half times L2
// (GemmPlan::a_rows_past_l2): this order streams the block from L3 and keeps
// the B panel in L2, and a block about L2's size does neither, swept whole
// through L2 beside the panel once per micro-panel of B. On the Zen 5 VM,
// with its profile, blocks of MC rows against one block of all rows
// (`PROFILE_A=ONE PROFILE_B=BLOCKS RIDGE_NUM_THREADS=1 ridge-ab LIB LIB2 n n
// n 11-15`, KC 256 / MC 512): 768^3 1.026, 1024^3 1.002-1.023. The rows
// admitted come from the library's L3 (a_rows_in_l3: machine_topology, the
// 4 MiB fallback there, so 1024 rows), not from the 11-16 MiB ridge-tune
// measures, so with the floor that VM never runs the order; the same runs'
// 1280^3 1.008, 1536^3 0.995 and 2048^3 0.987-0.994 timed one code path
// twice. An experiment build giving a_rows_in_l3 the profile's 11.3 MiB lost
// there as well, the order against the five loops (`RIDGE_NUM_THREADS=1
// ridge-ab ONE HEAD n n n 11`, both slots): 1536^3 0.977 / 0.982, 2048^3
// 0.983-0.987 / 0.976, 2560^3 0.976, TN 2048^3 0.970.
bool packs_all_rows_as_one_block(const GemmArgs& g, const GemmPlan& plan, int threads) {
    return threads == 1 && g.m > plan.blocking.MC && g.m >= plan.a_rows_past_l2 && g.m <= plan.a_rows_in_l3;
}

// Whether the block of A is read where the caller keeps it, not packed: one
// thread (or a slice of a team's), one block of A per KC step (m <= MC), A
// not transposed, fp32, and its columns at most two thirds of MC floats apart
// (512 on the Zen 4), so that the KC step's block of A, as stored, spans at most half
// of L2 (the model gives its packed block three quarters: MC 768 at KC 256 of
// 1 MiB). Every tile then runs the small kernel on A's columns lda apart (the
// packed kernel's FMAs in the same order: C bit for bit the same), and the
// first pass over the block reads it from memory under the FMAs instead of in
// a packing pass before them. Not where C is streamed out (the small kernel
// stores normally). Measured, one process alternating two builds
// (`RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 11`, medians of the paired
// ratios), 2 threads (each its own columns, each packing all of A before):
// 256 x 256 x 4096 1.135, 512 x 512 x 4096 1.059, 256 x 1024 x 1024 1.050; 1
// thread: 256 x 256 x 4096 1.054, 512 x 512 x 4096 1.010, 128 x 1024 x 2048
// 1.006 (an experiment build: 384 x 384 x 2048 1.007, 512 x 256 x 2048 1.004,
// 256 x 512 x 1024 1.000, 512^3 1.006). Columns further apart lost: up to MC
// (1 thread 768^3 0.940, 600^3 0.980, 700 x 300 x 5000 0.965; 2 threads
// 0.970), and far apart, in blocks of 768 of 1024-4096 rows, 0.73-0.97.
// All of that on the Zen 4. On the Intel VM (48 KiB L1, 2 MiB L2: MC 1792, so
// lda up to 1194) the same rule lost everywhere it applied (packed against in
// place, `RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 9`, an experiment build):
// 1 thread 1024^3 1.141, 1000^3 1.165, 1152 x 1024 x 1024 1.162, 768^3 1.087,
// 512 x 1024 x 1024 1.053, 512 x 512 x 4096 1.299 (2 threads 1.252), 512 x
// 2048 x 2048 1.228 (1.137), 512 x 4096 x 1024 1.180 (1.170), 320 x 3000 x
// 800 1.028 (1.032), 256 x 4096 x 512 1.016: 1024^3 ran at 0.93x oneDNN with
// it, at parity packed. So whether the rule applies is the machine's
// (RuntimeConfig::blocked_a_in_place: off unless ridge-tune measured it to
// pay; GemmPlan::a_in_place_max_lda carries 2/3 MC or 0).
bool reads_a_in_place(const GemmArgs& g, const GemmPlan& plan, const Schedule& s) {
    const GemmKernel& ker = *plan.kernel;
    return s.threads == 1 && s.blocks_per_group == 1 && !s.k_steps_outside_jc && !g.trans_a &&
           g.input == Dtype::f32 && ker.small_f32 != nullptr && ker.small_kernel_max_volume == 0 &&
           ker.packed_bytes == 4 && !plan.stream_c && g.lda <= plan.a_in_place_max_lda;
}

// Whether each block's ir loop runs outside its jr loop (run_ir_outside_jr):
// one MR-row panel of A packed at a time, into one of two panel buffers, and
// run against every micro-panel of the KC x NC panel of B, which stays in L2;
// while it runs, the next panel's source is prefetched, a share before each
// tile. In the five loops' order the whole block of A is packed before its
// first tile, in a pass that waits on memory: at 3000 x 192 x 3000 (1 thread)
// 12% of the call (perf, cpu-clock), A read at 16-18 GB/s, this VM's memory
// speed for such a pass, where the FMAs that follow need only 2 GB/s of it.
// Panel by panel, the next panel's 32 KiB arrive during the current panel's
// tiles (15 us at n = 192) and are packed from L1. For a one-thread schedule
// (alone, or a team's slice, which then shares out its A panels: see
// StepBoard), op(A) larger than the last-level cache, A not read in place,
// the k steps inside jc, B packed whole (not per micro-panel: one block of A
// keeps the five loops' order), and a B panel within
// b_panel_columns_for_ir_outside_jr. Each tile still runs the kernel on the
// same packed panels in the same order of KC steps: C is bit for bit the same.
// Measured against the previous build (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW
// M N K 9 [TRANS [TYPE]]`): 3000 x 192 x 3000 1.057, NT 1.040, TN 1.031, TT
// 1.019; 4000 x 240 x 2000 1.057 (f16 inputs 1.037, bf16 1.039); 2000 x 256
// x 2000 1.047; 4096 x 256 x 4096 1.027; 1000 x 192 x 8000 1.047 (shapes
// outside the rule: 1024^3 0.991, 2000 x 192 x 500 0.987). In experiment
// builds over the hour before: with A in cache it lost (1000 x 200 x 100
// 0.969-0.977, 2000 x 192 x 500 0.981), hence A from memory only; prefetching
// into L2 (prefetcht2) instead of L1 0.963-1.002 against L1; the next panel
// packed piece by piece between the tiles, its source prefetched one tile
// ahead, 1.012-1.013 at 3000 x 192 x 3000; the whole next block of A's
// source prefetched during the block's last micro-panel 1.002-1.011.
// A team's slices first kept the five loops' order, since sharing out B
// micro-panels needs the slice's whole block of A packed; sharing A panels
// instead, 2 threads against that (`RIDGE_NUM_THREADS=2 ridge-ab OLD NEW M N
// K 11`): 3000 x 192 x 3000 1.080 / 1.065 (TN 1.062, NT 1.082), 4000 x 240 x
// 2000 1.067 / 1.051 (f16 inputs 1.083), 2000 x 256 x 2000 1.070, 4096 x 256
// x 4096 1.008 / 1.030; each slice running its own A panels without sharing
// them 1.017 (3000 x 192 x 3000) and 1.024 (4000 x 240 x 2000) behind.
// All of that on Zen VMs. On the Intel VM (48 KiB L1, 2 MiB L2) the order lost
// wherever it applied (the five loops' order against it, `RIDGE_NUM_THREADS=T
// ridge-ab OLD NEW M N K 7 [TRANS]`, an experiment build switching it off):
// 1 thread 4096 x 128 x 4096 1.160, 4096 x 64 x 4096 1.216, 4096 x 96 x 4096
// 1.175, 4096 x 256 x 4096 1.085, 4000 x 240 x 2000 1.095, 3000 x 192 x 3000
// 1.063 (NT 1.040, TN 1.001), 2000 x 256 x 2000 1.041, 1000 x 192 x 8000
// 1.006; 2 threads 4096 x 128 x 4096 1.117, 4000 x 240 x 2000 1.052, 3000 x
// 192 x 3000 1.027 (the main job had 4096 x 128 x 4096 at 0.83x oneDNN with
// it). Without the next panel's prefetch it still lost (1.047 for the five
// loops at 4096 x 128 x 4096), with it into L2 too (1.014). So the order is
// the machine's: GemmPlan::b_panel_columns_for_ir_outside_jr is 0 unless
// RuntimeConfig::blocked_ir_outside_jr, which a profile sets where ridge-tune
// timed the order ahead (tune/ir_outside_jr.cpp).
// Not where the first micro-panel packs the block of A
// (packs_a_in_first_micro_panel: for an A from memory, only where a profile
// turned that on, up to 256 columns at 4 KiB-multiple strides): where both
// apply, that ran ahead. On the Zen 5, with a profile turning on both, the
// ir loop outside jr against the first micro-panel packing A (`PROFILE_A=TWIN
// PROFILE_B=IR_OUTSIDE RIDGE_NUM_THREADS=1 ridge-ab LIB LIB2 4096 N 4096 7`):
// 96 columns 0.944, 192 0.986; on the Zen 4 0.91 at 96.
bool runs_ir_outside_jr(const GemmPlan& plan, const Schedule& s) {
    return s.threads == 1 && plan.a_from_memory && !s.b_per_micro_panel && !s.k_steps_outside_jc &&
           !s.a_in_place && !s.a_packed_by_first_micro_panel && s.nc_max <= plan.b_panel_columns_for_ir_outside_jr;
}

// Whether each block of A is packed by the tiles of the first micro-panel of
// B that run against it (GemmKernel::ukr_packing_a: the kernel reads A's
// source and stores the packed panel as it computes), not in a packing pass
// before them. The pass reads A and writes the packed block before any FMA
// runs; the twin's loads and stores ride along with the first micro-panel's
// FMAs (oneDNN's f32 GEMM packs A this way, inside its kernel's first pass;
// its 384^3 runs 5-8% ahead of ridge's here). Each tile still runs the same
// FMAs on the same values: C is bit for bit what packing first gives. A
// one-thread schedule (alone, or a team's slice, whose owner runs the first
// micro-panel before it shares out the rest: run_shared_step), fp32 A not
// transposed (the twin copies MR-row runs of A's columns), not with A read in
// place, B's first tile read in place or C streamed out (the ir loop outside
// jr gives way to it: runs_ir_outside_jr); and the rows of op(A) the thread packs (all of m, or a row slice's
// rows: GemmPlan::a_rows_within_cache) within L2, or for a C of few columns
// within the last-level cache (paths.cpp: a_rows_within_cache): from memory
// the packing pass wins,
// as it sweeps each column of the block in order while the twin reads 128
// bytes from each of kc columns a page apart (1024^3 0.976-0.982, 1000^3
// 0.967 on the Intel VM). Measured there (`RIDGE_NUM_THREADS=1 ridge-ab OLD
// NEW M N K 9-15 [TRANS]`, against the build before it): 320^3 1.033, 384^3
// 1.023-1.033, 448^3 1.010, 512^3 1.008-1.013, 640^3 1.002-1.015, 704^3
// 1.010, 640 x 480 x 1200 1.016; NT (k steps outside jc) 384^3 1.015, 640^3
// 1.020, 512^3 0.999, 128 x 4096 x 4096 1.019 (op(A) 2 MiB, just within L2),
// 256 x 1024 x 1024 1.011; 2 threads (column slices, each packing all of A)
// 384^3 1.049, 512^3 1.024, 700 x 300 x 700 1.024; row slices whose rows fit
// L2 where all of op(A) does not (`RIDGE_NUM_THREADS=2`, an experiment
// build): 2000 x 100 x 300 1.041, 2000 x 200 x 300 1.022, 1500 x 100 x 500
// 1.018, 1200 x 300 x 400 1.000. The twin's prefetch of A's
// source 16 or 32 k steps ahead instead of 8 measured no different. Tried beside it:
// B read in place by every tile as well (oneDNN's kernel reads B's columns
// where they are) 1.015 / 1.024 / 1.008 / 0.975 at 320^3 / 384^3 / 512^3 /
// 768^3 against this alone: not kept.
bool packs_a_in_first_micro_panel(const GemmArgs& g, const GemmPlan& plan, const Schedule& s) {
    return s.threads == 1 && g.m <= plan.a_rows_within_cache && plan.kernel->ukr_packing_a != nullptr &&
           g.input == Dtype::f32 && !g.trans_a && !s.a_in_place && !s.first_tile_reads_b && !plan.stream_c;
}

// Columns per jc block: equal blocks, as few as allow each at most NC plus an
// eighth. NC itself would leave a thin last block (2048 = 2040 + 8 columns at
// NC = 2040; 4096 = 2 x 2040 + 16) that packs all of A again for a few columns
// of C, through edge tiles: one 2048-column block measured 1-3% faster at
// 2048^3 (1 thread, alternating runs). The B panel outgrows the model's share
// of L3 by at most an eighth, and the L3 is the least exact level of the model
// (often a fallback size).
int64_t nc_block(int64_t n, const BlockingParams& bp) { return round_up(equal_block(n, bp.NC), bp.NR); }

// Steps of fewer k steps than this have the macro-kernel prefetch, before each
// tile of C, the next tile down the micro-panel (prefetch_next_tile_of_c in
// gemm_blocked.cpp), where C outgrows the cache (GemmPlan::c_outgrows_cache)
// and is written with ordinary stores: the kernel's measured depth
// (GemmKernel::c_prefetched_ahead_below_kc). The fp32 AVX-512 kernel
// prefetches its own tile only from 128 k steps on (f32_gemm_avx512.cpp:
// kMinKcPrefetchingC), and below that its stores waited for their lines: at
// 4096 x 4096 x 16 (one thread) it spent most of its time on its 24 stores
// (perf), and oneDNN's kernel, which prefetches C over its last k steps even
// at k = 16, ran 1.10-1.15x ridge's. One tile ahead is a few hundred cycles
// at such depths, time for a line to come from memory. Measured against no
// prefetch (`RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 11-21 [NN TYPE]`, the
// profile's 128 MiB L3): 4096 x 4096 x 16 1.15, 4096 x 3072 x 16 1.10, 3072 x
// 3072 x 16 1.01, beta = 1 4096 x 4096 x 16 1.08, 2 threads 1.11, fp16 inputs
// 1.15, but 0.91-0.96 at 4096 x 4096 x 16 in the host's fastest spells, where
// C stayed in its cache (the depths: registry.cpp; the sizes of C: paths.cpp,
// c_outgrows_cache).
int64_t next_tile_of_c_prefetched_below_kc(const GemmPlan& plan) {
    return plan.c_outgrows_cache && !plan.stream_c ? plan.kernel->c_prefetched_ahead_below_kc : 0;
}

// Steps of fewer k steps than this run each micro-panel's full tiles in one
// kernel call (GemmKernel::ukr_tiles) where the kernel has that entry, as
// oneDNN's kernel loops over the rows of C within one call: at such depths a
// call is a few hundred cycles, and its own cost (the call, the dispatch on
// the tile's kind, the share of the next micro-panel's prefetch, which a
// micro-panel of B under 6 KiB hardly needs) a share of them. From 128 k steps
// on, the kernel prefetches its tile of C itself (kMinKcPrefetchingC) and the
// calls stay one per tile. Measured against one call per tile (`RIDGE_NUM_THREADS=T
// [BETA=1] ridge-ab OLD NEW M N K 11-15 [NN TYPE]`, the Intel VM, 1 thread
// unless said): 2048 x 2048 x 16 1.049, 4096 x 4096 x 16 1.073 (with the
// prefetch of C ahead), x 32 1.028, x 64 1.024, x 100 1.015, beta = 1 2048 x
// 2048 x 16 1.015, fp16 inputs 1.041, 2 threads 4096 x 4096 x 16 1.073, 2000 x
// 2000 x 40 (a partial last tile a micro-panel) 1.006; 1024^3 1.002 (not
// taken). The AVX2 kernel (`RIDGE_ISA=avx2`, 16 x 6 tiles, a slow spell):
// 2048 x 2048 x 16 1.037 and 1.021 (reversed), 4096 x 4096 x 16 1.115 and
// 1.054, x 64 1.032, x 100 1.039, 2 threads 4096 x 4096 x 16 1.071; 1024^3
// 1.002.
constexpr int64_t kTilesInOneCallBelowKc = 128;
int64_t runs_tiles_in_one_call_below_kc(const GemmPlan& plan) {
    return plan.kernel->ukr_tiles != nullptr && !plan.stream_c ? kTilesInOneCallBelowKc : 0;
}

}  // namespace

Schedule make_schedule(const GemmArgs& g, const GemmPlan& plan, int threads) {
    const GemmKernel& ker = *plan.kernel;
    const BlockingParams& bp = plan.blocking;
    Schedule s;
    s.threads = threads;
    // Split rows when every group gets at least two MR panels; else split the NR panels.
    s.ic_ways = g.m >= int64_t{threads} * 2 * bp.MR ? threads : 1;
    s.jr_ways = threads / s.ic_ways;
    // Equal blocks: the fewest blocks of at most MC rows per group, evenly sized,
    // so no group is left with a thin remainder block.
    const bool all_rows_one_block = packs_all_rows_as_one_block(g, plan, threads);
    s.blocks_per_group = all_rows_one_block ? 1 : ceil_div(g.m, bp.MC * s.ic_ways);
    s.mc = round_up(ceil_div(g.m, s.blocks_per_group * s.ic_ways), bp.MR);
    s.kc_max = std::min(kc_step_depth(ker, bp.KC), g.k);
    s.b_per_micro_panel = !all_rows_one_block && packs_b_per_micro_panel(threads, s.blocks_per_group, g.trans_b);
    s.first_tile_reads_b = first_tile_reads_b_source(g, plan, s.b_per_micro_panel);
    s.all_tiles_read_b = all_tiles_read_b_source(s.first_tile_reads_b, s.mc, bp.MR);
    s.k_steps_outside_jc =
        all_rows_one_block || runs_k_steps_outside_jc(threads, s.blocks_per_group, g.trans_b, plan);
    BlockingParams panel = bp;  // with the k steps outside, the B panel is sized for L2
    if (s.k_steps_outside_jc) panel.NC = std::min(bp.NC, plan.b_panel_columns_in_l2);
    s.nc_bound = panel.NC;
    s.nc_max = nc_block(g.n, panel);
    s.a_in_place = reads_a_in_place(g, plan, s);
    s.a_packed_by_first_micro_panel = packs_a_in_first_micro_panel(g, plan, s);
    s.ir_outside_jr = runs_ir_outside_jr(plan, s);
    s.tiles_read_b_from_l2 = all_tiles_read_b_from_l2(g, plan, s);
    s.first_tile_packs_b = packs_b_in_first_tile(g, plan, s);
    s.prefetch_c_below_kc = next_tile_of_c_prefetched_below_kc(plan);
    s.tiles_in_one_call_below_kc = runs_tiles_in_one_call_below_kc(plan);
    return s;
}

}  // namespace ridge
