// The five loops around the microkernel (Goto and van de Geijn; BLIS).
//
//   jc: NC columns of B and C      the packed KC x NC panel of B lives in L3
//   pc: KC deep                    pack B; beta applies only at pc == 0
//   ic: MC rows of A and C         the packed MC x KC block of A lives in L2
//   jr: NR columns                 one KC x NR micro-panel of B lives in L1
//   ir: MR rows                    the microkernel: an MR x NR tile of C in registers
//
// Threads split jc, ic and jr, never pc: every element of C sees the same
// sequence of KC-deep partial sums in the same order whatever the thread
// count, so results are bit-identical for any thread count. A team either
// splits the columns or the rows of C, each thread running all five loops on
// its own share (run_slices), or shares each B panel and splits ic and jr
// within it (run_thread with a team schedule); see splits_columns and
// splits_rows. A thread out of work runs another's micro-panels (or A panels,
// where the ir loop runs outside jr) not yet started (StepBoard).
// The schedule's rules (loop order, what is packed or read in place) are in blocked_schedule.cpp.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <thread>

#include "dispatch/cpu_features.h"
#include "gemm/blocked_schedule.h"
#include "gemm/claim.h"
#include "gemm/gemm.h"
#include "gemm/pack.h"
#include "gemm/workspace.h"
#include "util/int_math.h"

namespace ridge {
namespace {

// Teams up to this size report their traffic (a report of a bigger team says so).
constexpr int kMaxCountedThreads = 256;

// Largest tile any registered kernel uses (32 x 32 today), for the edge scratch tile.
constexpr int64_t kMaxTileFloats = 32 * 32;

// [first, last) of `count` items for member `index` of `parts` equal shares.
struct Range {
    int64_t first, last;
};
Range share(int64_t count, int parts, int index) {
    const int64_t base = count / parts, extra = count % parts;
    const int64_t first = index * base + std::min<int64_t>(index, extra);
    return {first, first + base + (index < extra ? 1 : 0)};
}

// A barrier of ridge's own team. A one-thread schedule runs outside any parallel
// region of ridge's, where a bare `omp barrier` would bind to the caller's team
// (ridge called from inside the caller's parallel region) and deadlock it.
void team_barrier(const Schedule& s) {
    if (s.threads > 1) {
#pragma omp barrier
    }
}

// One schedule's packing buffers (a team splitting C's columns gives each thread its own).
struct Buffers {
    char* packed_b;  // the KC x NC panel of B (nc_max/NR panels) shared by the schedule's team,
                     // or one micro-panel (Schedule::b_per_micro_panel)
    char* packed_a;  // ic_ways blocks of A (mc/MR panels each), one per group
};

// Bytes of the packed B panel and of one packed A block for schedule s.
int64_t packed_b_bytes(const Schedule& s, const GemmKernel& ker) {
    const int64_t panels = s.b_per_micro_panel ? 1 : s.nc_max / ker.NR;
    return panels * panel_bytes(ker.NR, s.kc_max, ker.packed_bytes);
}
int64_t packed_a_bytes(const Schedule& s, const GemmKernel& ker) {
    return (s.mc / ker.MR) * panel_bytes(ker.MR, s.kc_max, ker.packed_bytes);
}

// Reserves the buffers of schedule s in the calling thread's workspace; false when out of memory.
bool reserve(Workspace& ws, const Schedule& s, const GemmKernel& ker, Buffers* buf) {
    auto floats = [](int64_t bytes) { return size_t((bytes + 3) / 4); };
    buf->packed_b = reinterpret_cast<char*>(ws.packed_b.reserve(floats(packed_b_bytes(s, ker))));
    buf->packed_a = reinterpret_cast<char*>(ws.packed_a.reserve(floats(s.ic_ways * packed_a_bytes(s, ker))));
    return buf->packed_b != nullptr && buf->packed_a != nullptr;
}

// An MR x NR tile at the edge of C: run the full kernel on a scratch tile so
// nothing outside C is read or written, with the same arithmetic as a full tile.
void edge_tile(const GemmKernel& ker, int64_t kc, float alpha, const void* a, const void* b,
               float beta, float* c, int64_t ldc, int64_t mr, int64_t nr) {
    alignas(64) float tile[kMaxTileFloats] = {};
    if (beta != 0.0f)
        for (int64_t j = 0; j < nr; ++j) std::memcpy(tile + j * ker.MR, c + j * ldc, mr * sizeof(float));
    ker.ukr(kc, alpha, a, b, beta, tile, ker.MR);
    for (int64_t j = 0; j < nr; ++j) std::memcpy(c + j * ldc, tile + j * ker.MR, mr * sizeof(float));
}

// One pass of the macro-kernel: a packed block of A (mc x kc) against the
// kc x nc panel of B, into the block of C at c. The panel of B is packed in
// full at packed_b or, when b_per_micro_panel (Schedule::b_per_micro_panel),
// one micro-panel at a time from b_source (op(B) at the panel's corner), just
// before its ir loop, into a buffer of the running thread's own.
struct MacroStep {
    const GemmKernel* ker = nullptr;
    int64_t mc = 0, nc = 0, kc = 0;
    float alpha = 1.0f, beta = 0.0f;
    const char* packed_a = nullptr;
    const char* packed_b = nullptr;
    bool b_per_micro_panel = false;
    bool first_tile_reads_b = false;  // Schedule::first_tile_reads_b
    bool all_tiles_read_b = false;    // Schedule::all_tiles_read_b
    bool tiles_read_b_from_l2 = false;  // Schedule::tiles_read_b_from_l2
    bool first_tile_packs_b = false;  // Schedule::first_tile_packs_b
    MatrixView b_source{};
    float* c = nullptr;
    int64_t ldc = 0;
    bool stream_c = false;  // see GemmPlan::stream_c
    bool prefetch_next_tile_of_c = false;  // kc below Schedule::prefetch_c_below_kc
    bool tiles_in_one_call = false;        // kc below Schedule::tiles_in_one_call_below_kc
    const float* a_source = nullptr;  // the block of A in place (Schedule::a_in_place), or null: packed_a
    int64_t lda = 0;                  // of a_source
    // ir outside jr (Schedule::ir_outside_jr): the block of A's source, packed
    // panel by panel into two panel buffers at a_panels (the running thread's:
    // a helper puts its own in its copy of the step); packed_a unused. Else
    // a_panels is null.
    MatrixView a_block{};
    char* a_panels = nullptr;
    // The block of A packed by the first micro-panel's tiles
    // (Schedule::a_packed_by_first_micro_panel): its source is a_block and the
    // tiles of micro-panel 0 write packed_a, here writable; else null.
    char* a_packed_by_first_micro_panel = nullptr;
};

// The units a step's work is cut into, for macro_kernel's ranges and for
// sharing it out: its A panels where the ir loop runs outside jr (each
// against the whole B panel), else its B micro-panels (each against the
// whole block of A).
int64_t step_units(const MacroStep& st) {
    return st.a_panels != nullptr ? ceil_div(st.mc, st.ker->MR) : ceil_div(st.nc, st.ker->NR);
}

// Call `call` of `calls` in an ir loop: prefetch its share of the lines of the
// next B micro-panel (`bytes` at `next`) into L2. The whole packed panel of B
// does not fit in L2 beside the block of A, so each micro-panel comes from L3
// when its ir loop starts, and the first kernel call on it waited for its
// broadcasts of B until the hardware prefetcher caught up; this way they come
// from L2. Into L2 rather than L1, where the current micro-panel is being
// read, and spread over the calls, not issued at once, so the prefetches do
// not crowd out the kernel's own fill buffers. Measured, paired against the
// previous build (`ridge-ab OLD NEW M N K ROUNDS`, 1 thread): 2048^3
// 1.001-1.017 over eleven runs (median 1.010), bf16 inputs 1.011, 2064^3
// 1.006, 3000^3 0.998, NT 1024^3 1.001, 4096 x 256 x 4096 0.996, 2 threads
// 2048^3 0.998-1.002; into L1 over the last four calls instead 1.004 at 2048^3.
// The shares are worked out once per micro-panel, not per call: perf put 4% of
// a 2048 x 2048 x 16 product's samples (one thread, calls of a few hundred
// cycles) after the two integer divisions a call made; worked out once it
// measured 1.001 there and 1.032 at 2048 x 2048 x 64.
struct NextMicroPanelPrefetch {
    static constexpr int64_t kLine = 64;
    const char* next = nullptr;  // null: no next micro-panel to prefetch
    int64_t lines = 0, per_call = 0;

    NextMicroPanelPrefetch(const char* next_panel, int64_t bytes, int64_t calls)
        : next(next_panel), lines(bytes / kLine), per_call(ceil_div(bytes / kLine, std::max<int64_t>(calls, 1))) {}

    void share(int64_t call) const {
        if (next == nullptr) return;
        const int64_t first = call * per_call, last = std::min(lines, first + per_call);
        for (int64_t line = first; line < last; ++line) __builtin_prefetch(next + line * kLine, 0, 2);  // prefetcht1
    }
};

// Before the first kernel call on a micro-panel: one prefetch into L2 per
// column of its first tile of C (at c, nr columns ldc apart), all issued
// together. Timed call by call (rdtsc, 2048^3, one thread), every call on a
// micro-panel but the first runs at the kernel's rate with its panels in L1;
// the first took about 900 TSC cycles (a third of a call) longer, nearly all of
// it page walks for the 12 columns of C it touches first: C spans 4096 pages of
// 4 KiB, more than the second-level TLB holds, so every KC step walks them all
// again (with C on 2 MiB pages, in a test program, the first call ran within
// 100-250 cycles of the others and the whole call 1.014-1.018x faster). The
// kernel's own prefetches of C meet those walks one column every few k steps
// near its end; issued together before the call, the walks can overlap (the
// presumed mechanism; the gain is what was measured). With and without it in
// one process, switched call by call (an experiment build; medians of 20-30
// paired ratios, 1 thread): 2048^3 1.008-1.009, 1024^3 1.012, 4096^3 1.023,
// 1536^3 1.003, NT / TN 2048^3 1.014 / 1.008, 4096 x 256 x 4096 1.009, 256 x
// 4096 x 4096 1.002, 2 threads 1.003-1.005; against the previous build
// (`ridge-ab OLD NEW 2048 2048 2048 20`) 1.005-1.008 in a quiet spell, where
// two copies of one build read 0.997-1.000. Tried beside it: every page of the
// block's rows, not just the first row's (0.993-1.007 over six shapes), all 24
// lines of the first tile (0.997-1.007), the next micro-panel's columns walked
// during this one (0.98-1.002: each walk stalled the call it landed in).
void touch_c_columns(const float* c, int64_t ldc, int64_t nr) {
    for (int64_t j = 0; j < nr; ++j) __builtin_prefetch(c + j * ldc, 0, 1);  // 1: prefetcht2
}

// Before the tile at cij (nr columns ldc apart) of a step with
// prefetch_next_tile_of_c: the lines of the tile below it, rows MR to 2 MR - 1
// from cij, into L1, all issued together: its kernel call is a few hundred
// cycles away, time for a line to come from memory, and its stores then find
// their lines in L1. A plain prefetch (prefetcht0): with write intent
// (prefetchw, this file built with -mprfchw) it measured the same (4096 x 4096
// x 16 0.999, 3072 x 3072 x 16 0.999, 4096 x 4096 x 64 0.986), and issued from
// the kernel instead 1.000-1.008 (where a micro-panel's tiles run in one call,
// the kernel issues it: GemmTilesUkr's prefetch_next_c). A last tile prefetches
// rows past the block (the next block's, or the next column's), which costs a
// fetch and nothing else: a prefetch never faults.
void prefetch_next_tile_of_c(const float* cij, int64_t ldc, int64_t MR, int64_t nr) {
    constexpr int64_t kLineFloats = 16;
    for (int64_t j = 0; j < nr; ++j)
        for (int64_t i = MR; i < 2 * MR; i += kLineFloats) __builtin_prefetch(cij + i + j * ldc, 0, 3);
}

// The tiles in rows 0..rows-1 of the block of micro-panel jp with B read from
// its source (first_tile_reads_b_source, all_tiles_read_b_source): the small
// kernel reads each packed A panel as columns MR apart and op(B)'s columns ld
// apart. A last tile of fewer than MR rows computes only those (the same
// arithmetic as the edge kernel's: an FMA chain per element in k order, then
// alpha and beta as store_tile_avx512.h applies them).
void run_tiles_from_b_source(const MacroStep& st, int64_t jp, int64_t rows) {
    const GemmKernel& ker = *st.ker;
    const MatrixView b = offset(st.b_source, 0, jp * ker.NR);
    const int64_t a_stride = panel_bytes(ker.MR, st.kc, ker.packed_bytes);
    for (int64_t i0 = 0; i0 < rows; i0 += ker.MR) {
        const auto* a = st.a_source != nullptr ? st.a_source + i0
                                               : reinterpret_cast<const float*>(st.packed_a + (i0 / ker.MR) * a_stride);
        const int64_t a_step = st.a_source != nullptr ? st.lda : ker.MR;
        ker.small_f32(std::min<int64_t>(ker.MR, rows - i0), ker.NR, st.kc, st.alpha, a, a_step,
                      static_cast<const float*>(b.data), 1, b.ld, st.beta, st.c + i0 + jp * ker.NR * st.ldc, st.ldc);
    }
}

// One tile of C, `mr` x `nr` at cij, from packed panels of A and B.
// Always inlined, as this dispatch was in the ir loop before both loops shared it.
[[gnu::always_inline]] inline void run_packed_tile(const MacroStep& st, const char* a, const char* b, float* cij,
                                                   int64_t mr, int64_t nr) {
    const GemmKernel& ker = *st.ker;
    if (mr == ker.MR && nr == ker.NR && st.stream_c)  // beta 0, tile aligned: see GemmPlan::stream_c
        ker.ukr_stream_c(st.kc, st.alpha, a, b, st.beta, cij, st.ldc);
    else if (mr == ker.MR && nr == ker.NR)
        ker.ukr(st.kc, st.alpha, a, b, st.beta, cij, st.ldc);
    else if (ker.ukr_edge != nullptr)
        ker.ukr_edge(mr, nr, st.kc, st.alpha, a, b, st.beta, cij, st.ldc);
    else
        edge_tile(ker, st.kc, st.alpha, a, b, st.beta, cij, st.ldc, mr, nr);
}

// Tile i0 of the first micro-panel where that micro-panel packs the block of
// A (MacroStep::a_packed_by_first_micro_panel): a full tile through the kernel
// packing its A panel as it goes, a partial one after packing its panel.
void run_tile_packing_a(const MacroStep& st, int64_t i0, const char* b, float* cij, int64_t mr, int64_t nr) {
    const GemmKernel& ker = *st.ker;
    char* a = st.a_packed_by_first_micro_panel + (i0 / ker.MR) * panel_bytes(ker.MR, st.kc, ker.packed_bytes);
    if (mr == ker.MR && nr == ker.NR) {
        const auto* source = static_cast<const float*>(offset(st.a_block, i0, 0).data);
        ker.ukr_packing_a(st.kc, st.alpha, source, st.a_block.ld, a, b, st.beta, cij, st.ldc);
        return;
    }
    pack_a_panel(ker.pack_panel, st.a_block, st.mc, st.kc, ker.MR, i0 / ker.MR, a);
    run_packed_tile(st, a, b, cij, mr, nr);
}

// Tile 0 of micro-panel jp through the kernel packing B as it goes
// (Schedule::first_tile_packs_b): the micro-panel read from op(B) where the
// caller keeps it and packed into b_buffer, which the tiles after it read.
void run_first_tile_packing_b(const MacroStep& st, int64_t jp, char* b_buffer) {
    const GemmKernel& ker = *st.ker;
    const MatrixView b = offset(st.b_source, 0, jp * ker.NR);
    ker.ukr_packing_b(st.kc, st.alpha, st.packed_a, static_cast<const float*>(b.data), b.ld, b_buffer, st.beta,
                      st.c + jp * ker.NR * st.ldc, st.ldc);
}

// Iteration jp of loop jr: B micro-panel jp (in L1 throughout) against every
// A micro-panel of the block. b_buffer holds one micro-panel (b_per_micro_panel).
void run_micro_panel(const MacroStep& st, int64_t jp, char* b_buffer) {
    const GemmKernel& ker = *st.ker;
    const int64_t MR = ker.MR, NR = ker.NR;
    const int64_t nr = std::min(NR, st.nc - jp * NR);
    const int64_t b_bytes = panel_bytes(NR, st.kc, ker.packed_bytes);
    const char* b = st.packed_b + jp * b_bytes;
    // The next micro-panel of the packed panel, if it has one (none when packed one at a time).
    const char* b_next = st.b_per_micro_panel || (jp + 1) * NR >= st.nc ? nullptr : b + b_bytes;
    // Not when C is streamed out: nothing reads it, and a prefetch would fetch it for nothing.
    if (!st.stream_c) touch_c_columns(st.c + jp * NR * st.ldc, st.ldc, nr);
    int64_t first_row = 0;  // of the tiles left to run
    const bool packs_a = st.a_packed_by_first_micro_panel != nullptr && jp == 0;
    if (st.b_per_micro_panel) {
        // Tiles written with ordinary stores (not where C is streamed out): the
        // first, or every one (a partial last row too), with B read in place;
        // not where the tiles pack A, which read B packed. B within L2 is read
        // in place only in a step that does not read C (all_tiles_read_b_from_l2).
        const bool all_read_b = st.all_tiles_read_b || (st.tiles_read_b_from_l2 && st.beta == 0.0f);
        if ((st.first_tile_reads_b || all_read_b) && nr == NR && st.mc >= MR && !st.stream_c && !packs_a) {
            first_row = all_read_b ? st.mc : MR;
            run_tiles_from_b_source(st, jp, first_row);
        }
        if (first_row == st.mc) return;  // B not packed at all
        if (st.first_tile_packs_b && nr == NR && st.mc >= MR && !packs_a) {
            run_first_tile_packing_b(st, jp, b_buffer);
            first_row = MR;
        } else {
            pack_b_panel(ker.pack_panel_b, ker.packed_bytes, ker.k_group, st.b_source, st.kc, st.nc, NR, jp, b_buffer);
        }
        b = b_buffer;
    }
    const int64_t a_stride = panel_bytes(MR, st.kc, ker.packed_bytes);
    if (st.tiles_in_one_call && nr == NR && !packs_a && st.a_source == nullptr && !st.stream_c) {
        const int64_t tiles = (st.mc - first_row) / MR;  // the full ones; a partial last tile runs below
        ker.ukr_tiles(tiles, st.kc, st.alpha, st.packed_a + (first_row / MR) * a_stride, a_stride, b, st.beta,
                      st.c + first_row + jp * NR * st.ldc, st.ldc, st.prefetch_next_tile_of_c);
        first_row += tiles * MR;
    }
    const NextMicroPanelPrefetch prefetch_next(b_next, b_bytes, ceil_div(st.mc, MR));
    int64_t call = first_row / MR;  // the tile's index in the micro-panel
    for (int64_t i0 = first_row; i0 < st.mc; i0 += MR, ++call) {  // ir: A micro-panels stream from L2
        const int64_t mr = std::min(MR, st.mc - i0);
        prefetch_next.share(call);
        float* cij = st.c + i0 + jp * NR * st.ldc;
        if (st.prefetch_next_tile_of_c) prefetch_next_tile_of_c(cij, st.ldc, MR, nr);
        if (packs_a)
            run_tile_packing_a(st, i0, b, cij, mr, nr);
        else if (st.a_source != nullptr)  // A in place (Schedule::a_in_place), B packed: k-major, NR floats a step
            ker.small_f32(mr, nr, st.kc, st.alpha, st.a_source + i0, st.lda, reinterpret_cast<const float*>(b), NR,
                          1, st.beta, cij, st.ldc);
        else
            run_packed_tile(st, st.packed_a + call * a_stride, b, cij, mr, nr);
    }
}

// Source runs [first, last) of MR-row panel `panel` of the block of A
// (MacroStep::a_block) prefetched into L1: k steps of the panel's rows for A
// as stored, or its rows, each kc long, for A transposed; either way run r
// starts r leading dimensions after the panel's first element.
void prefetch_a_panel_runs(const MacroStep& st, int64_t panel, int64_t first, int64_t last) {
    const int64_t MR = st.ker->MR, row = panel * MR;
    if (row >= st.mc) return;
    const int64_t rows = std::min(MR, st.mc - row);
    const bool runs_are_rows = st.a_block.trans;
    last = std::min(last, runs_are_rows ? rows : st.kc);
    const int64_t elem = st.a_block.elem_bytes, run_bytes = (runs_are_rows ? st.kc : rows) * elem;
    const int64_t ld_bytes = st.a_block.ld * elem;
    const char* run = static_cast<const char*>(offset(st.a_block, row, 0).data) + first * ld_bytes;
    constexpr int64_t kLine = 64;
    for (int64_t r = first; r < last; ++r, run += ld_bytes) {
        for (int64_t byte = 0; byte < run_bytes; byte += kLine) __builtin_prefetch(run + byte, 0, 3);
        __builtin_prefetch(run + run_bytes - 1, 0, 3);  // a run not starting a line ends in one more
    }
}

// A panels `a_range` of a step with its ir loop outside its jr loop
// (Schedule::ir_outside_jr), each against every micro-panel of the B panel.
void run_ir_outside_jr(const MacroStep& st, Range a_range) {
    const GemmKernel& ker = *st.ker;
    const int64_t MR = ker.MR, NR = ker.NR;
    const int64_t a_bytes = panel_bytes(MR, st.kc, ker.packed_bytes);
    const int64_t b_bytes = panel_bytes(NR, st.kc, ker.packed_bytes);
    const int64_t tiles = ceil_div(st.nc, NR);  // per A panel
    if (tiles <= 0) return;
    const int64_t runs = st.a_block.trans ? MR : st.kc;   // of a panel's source
    const int64_t runs_per_tile = ceil_div(runs, tiles);  // prefetched before each tile
    for (int64_t ip = a_range.first; ip < a_range.last; ++ip) {  // ir: one A panel in L1
        char* a = st.a_panels + (ip % 2) * a_bytes;  // the other buffer still holds the last panel, nothing reads it
        pack_a_panel(ker.pack_panel, st.a_block, st.mc, st.kc, MR, ip, a);
        const int64_t i0 = ip * MR, mr = std::min(MR, st.mc - i0);
        for (int64_t jp = 0; jp < tiles; ++jp) {  // jr: B micro-panels from L2
            prefetch_a_panel_runs(st, ip + 1, jp * runs_per_tile, (jp + 1) * runs_per_tile);
            const int64_t nr = std::min(NR, st.nc - jp * NR);
            run_packed_tile(st, a, st.packed_b + jp * b_bytes, st.c + i0 + jp * NR * st.ldc, mr, nr);
        }
    }
}

// Units `units` of a step (step_units): loop ir over those A panels, or jr over those micro-panels of B.
void macro_kernel(const MacroStep& st, Range units, char* b_buffer) {
    if (st.a_panels != nullptr) return run_ir_outside_jr(st, units);
    for (int64_t jp = units.first; jp < units.last; ++jp) run_micro_panel(st, jp, b_buffer);
}

// Sharing the micro-panels of a step within a team whose threads each run the
// macro-kernel on blocks of their own: the columns or rows of C split
// (run_slices), or the rows of a shared B panel (a team schedule with one
// thread per group). On a shared machine one core is often slower for a while (measured
// here: the two slices of a 2048^3 call finished 8-20% apart, at random from
// call to call), so the faster thread would sit idle, at the end or at each
// KC step's barrier. Instead each thread posts its current step on its board,
// and claims its own micro-panels from it a few at a time (StepClaims); a
// thread done with its own work up to a point (the whole call, or a KC step
// of the team) claims the others' until they reach that point too, running each panel
// with the step's packed A and B, where they are. A thread moves on to its
// next step (repacking A or B) only when every panel of the current one has
// been run, whoever ran it. Each tile of C is still one kernel call on the
// same packed operands, in the same order of KC steps, so C is bit for bit
// what one thread computes. A step whose ir loop runs outside jr is shared
// out by its A panels instead (step_units): a helper packs each panel it
// claims into a buffer of its own and runs it against the owner's B panel,
// so no thread needs another's whole block of A packed.
struct alignas(64) StepBoard {
    StepClaims claims;  // of the posted step's panels
    std::atomic<int64_t> done{0};  // panels of the posted step finished, by anyone
    std::atomic<int64_t> reached{0};  // how far the owner has got (see help_until_others_reach)
    MacroStep step;  // written by the owner before it posts the step, read only by a thread holding a claim
};

struct PanelSharing {
    StepBoard* boards;  // one per thread of the team
    int threads;
    int self;
    // Where this thread packs the A panels it claims from a step whose ir loop
    // runs outside jr (room for two panels of another's KC; its own buffer
    // for A, free whenever it helps: its own steps are done by then). Null
    // for a team schedule, whose steps never run ir outside jr.
    char* help_a_panels;
};

// One turn of a wait for another thread of the team: the CPU's spin hint, and
// every 256th turn the rest of the time slice, so that a team with more threads
// than free cores lets the thread it waits for run.
void wait_turn(int64_t turn) {
    if (turn % 256 == 255)
        std::this_thread::yield();
    else
        spin_wait_hint();
}

// The owner's side: post the step, run panels until none is left unclaimed,
// then wait for the ones other threads took.
void run_shared_step(const PanelSharing& sh, const MacroStep& st, char* b_buffer) {
    StepBoard& board = sh.boards[sh.self];
    const int64_t panels = step_units(st);
    if (panels > StepClaims::kMaxPanels) {
        macro_kernel(st, {0, panels}, b_buffer);
        return;
    }
    // Where the first micro-panel packs the block of A that every other one
    // reads (MacroStep::a_packed_by_first_micro_panel), the owner runs it
    // before posting the rest: claims start after it.
    const int64_t run_first = st.a_packed_by_first_micro_panel != nullptr ? 1 : 0;
    if (run_first > 0) macro_kernel(st, {0, run_first}, b_buffer);
    board.step = st;
    board.step.a_packed_by_first_micro_panel = nullptr;
    board.done.store(0, std::memory_order_relaxed);
    board.claims.post(panels, run_first);
    int64_t ran = run_first;
    for (int64_t first, n; (n = board.claims.claim(sh.threads, &first)) > 0; ran += n)
        macro_kernel(st, {first, first + n}, b_buffer);
    if (board.done.fetch_add(ran, std::memory_order_acq_rel) + ran == panels) return;
    for (int64_t turn = 0; board.done.load(std::memory_order_acquire) != panels; ++turn) wait_turn(turn);
}

// The last panels of each posted step a helper leaves to their owner. A panel
// taken over reads the owner's packed A (and B panel) from the other core's
// cache, more slowly than the owner runs it: where both threads keep pace, a
// helper done first that takes the owner's last panel or two makes the owner
// wait for it. Left to the owner, they cost a helper at most the
// time the owner takes to run them. Measured on 2 threads against taking all
// (`RIDGE_NUM_THREADS=2 build/bench/ridge-ab OLD NEW N N N 15-21`, an
// experiment build, two processes each): 256^3 1.029-1.140, 320^3
// 1.003-1.014, 384^3 0.998-1.005, 448^3 1.018-1.030, 512^3 1.004-1.051;
// 1024^3 0.987-1.002, 2048^3 0.997-0.998, 2000 x 200 x 2000 (rows split)
// 0.993-0.994, 4096 x 512 x 1024 (a team sharing B panels) 0.994-1.009. No
// sharing at all measured the same at 256^3-448^3 (1.006-1.072), but leaves a
// thread whose core is taken away for a while to finish its share alone.
constexpr int64_t kPanelsLeftToOwner = 2;

// Points a thread reaches: the end of each KC step of a team schedule (1, 2,
// ...), and the end of its work.
constexpr int64_t kAllStepsDone = INT64_MAX;

// The helper's side, once its own work up to `point` is done: run the others'
// unclaimed panels until every thread of the team has reached it too.
void help_until_others_reach(const PanelSharing& sh, int64_t point, char* b_buffer) {
    sh.boards[sh.self].reached.store(point, std::memory_order_release);
    for (int64_t turn = 0;; ++turn) {
        bool all_reached = true;
        for (int t = 0; t < sh.threads; ++t) {
            StepBoard& other = sh.boards[t];
            if (t == sh.self || other.reached.load(std::memory_order_acquire) >= point) continue;
            all_reached = false;
            for (int64_t first, n; (n = other.claims.claim(sh.threads, &first, kPanelsLeftToOwner)) > 0;) {
                MacroStep st = other.step;  // stable until this claim's panels are done
                if (st.a_panels != nullptr) st.a_panels = sh.help_a_panels;
                macro_kernel(st, {first, first + n}, b_buffer);
                // Streamed stores are weakly ordered: globally visible before the owner goes on.
                if (st.stream_c) std::atomic_thread_fence(std::memory_order_seq_cst);
                other.done.fetch_add(n, std::memory_order_release);
            }
        }
        if (all_reached) return;
        wait_turn(turn);
    }
}

// The block of C one macro-kernel step updates: rows ic.., columns jc.. of
// C, mc x nc, by one KC step (kc deep), C scaled by beta on the way.
struct BlockOfC {
    int64_t ic, jc, mc, nc, kc;
    float beta;
};

// The step of the macro-kernel for block `blk`: the packed block of A at
// packed_a against the B panel b_panel (op(B) at the block's k step and jc),
// packed at packed_b, or per micro-panel as the schedule says.
MacroStep macro_step(const GemmArgs& g, const GemmKernel& ker, const Schedule& s, const BlockOfC& blk,
                     const char* packed_a, const char* packed_b, MatrixView b_panel, bool stream_c) {
    MacroStep step;
    step.ker = &ker;
    step.mc = blk.mc, step.nc = blk.nc, step.kc = blk.kc;
    step.alpha = g.alpha, step.beta = blk.beta;
    step.packed_a = packed_a, step.packed_b = packed_b;
    step.b_per_micro_panel = s.b_per_micro_panel, step.b_source = b_panel;
    step.first_tile_reads_b = s.first_tile_reads_b;
    step.tiles_read_b_from_l2 = s.tiles_read_b_from_l2;
    step.first_tile_packs_b = s.first_tile_packs_b;
    step.all_tiles_read_b = s.all_tiles_read_b;
    step.c = g.c + blk.ic + blk.jc * g.ldc, step.ldc = g.ldc;
    step.stream_c = stream_c;
    step.prefetch_next_tile_of_c = blk.kc < s.prefetch_c_below_kc;
    step.tiles_in_one_call = blk.kc < s.tiles_in_one_call_below_kc;
    return step;
}

// What one thread's part of a step moved, added to `traffic` (see Traffic):
// a_rows of the block of A packed from memory, `cols` columns of the block of
// C written (and read), the B panel's `cols` columns into L2 (once per block
// of A) and the block of A into L1 once per micro-panel of B (`micro_panels`),
// or, with the ir loop outside jr, the B panel into L1 once per panel of A (A's
// panels are packed from their source in L1 and read there).
void count_step(Traffic* traffic, const Schedule& s, const GemmKernel& ker, double in_bytes, const BlockOfC& blk,
                double a_rows, double cols, double micro_panels, bool ir_outside_jr) {
    const double packed_bytes = ker.packed_bytes;
    traffic->memory += in_bytes * blk.kc * a_rows;                           // A, packed from memory
    traffic->memory += 4.0 * blk.mc * cols * (blk.beta != 0.0f ? 2 : 1);   // C written (and read)
    // the B panel into L2; per micro-panel, op(B) itself, packed on its way to L1
    traffic->l3_to_l2 += (s.b_per_micro_panel ? in_bytes : packed_bytes) * blk.kc * cols;
    if (ir_outside_jr)
        traffic->l2_to_l1 += packed_bytes * blk.kc * cols * ceil_div(blk.mc, ker.MR);
    else
        traffic->l2_to_l1 += packed_bytes * blk.kc * (micro_panels * blk.mc + cols);
}

// The five loops on thread `tid` of the team (see run_thread).
//
// Packing is most of what keeps one thread below the kernel's own rate at
// 1024^3-2048^3. Timed with rdtsc around the two packers (an experiment build,
// 1 thread, Zen 5 VM): 1024^3 5.7-8.8% of the call (A 2.7-3.6%, B 3.1-5.2%),
// 2048^3 3.6-4.1%, at 8-15 GB/s, where the same packers run at 27 (B) and 34
// (A) GB/s on a source read just before. Their sources come from memory: on
// that VM, lines read a KC step earlier (2-10 ms) come back at close to the
// speed of memory (a throwaway probe re-reading 2 MiB as 1 KiB runs 8 KiB
// apart: 24.9 GB/s at once, 19.0 after 0.2 ms of register-only work, 17.9
// after 2 ms, 12.6 after 20 ms; 13.4 cold), so fetching them a step ahead
// does not pay. Tried, paired against the same build without it
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW n n n 9-11`, n = 1024 and 2048): the
// next block of A's source and the next KC step's B source prefetched into L2
// across the current step's kernel calls 0.966-1.000, the packers' rdtsc shares
// unchanged; the next KC step's B panel packed micro-panel by micro-panel
// during this step's last block of A (a second panel buffer; with or without
// its source prefetched one micro-panel ahead) 0.979-0.994; B's packer
// prefetching 2-4 panels ahead or into L2 0.985-0.999, or writing the panel
// with non-temporal stores (no read for ownership) 0.984-0.985; A's packer
// prefetching 2-32 columns ahead 0.991-1.008. Other blockings (profiles, the
// same build): one block of A, B then packed per micro-panel (MC 1024, KC
// 128-256 at 1024^3 0.968-0.990; MC 2048, KC 128 / 256 at 2048^3 0.958 /
// 0.985); KC / MC 512 / 256, 384 / 352, 320 / 512, 192 / 512 at 1024^3
// 0.982-1.004; 512 / 352, 384 / 480, 320 / 576 at 2048^3 0.993-0.999.
void run_five_loops(const GemmArgs& g, const GemmKernel& ker, const Schedule& s, const Buffers& buf, int tid,
                    Traffic* traffic, bool stream_c, const PanelSharing* sharing, char* b_buffer) {
    const double in_bytes = dtype_bytes(g.input);
    const int64_t MR = ker.MR, NR = ker.NR;
    const int group = tid / s.jr_ways;
    const int member = tid % s.jr_ways;
    char* my_packed_a = buf.packed_a + group * packed_a_bytes(s, ker);
    const MatrixView A{g.a, g.lda, g.trans_a, dtype_bytes(g.input)};
    const MatrixView B{g.b, g.ldb, g.trans_b, dtype_bytes(g.input)};
    int64_t steps_done = 0;  // KC steps, for help_until_others_reach

    for (int64_t jc = 0; jc < g.n; jc += s.nc_max) {  // jc: the B panel in L3
        const int64_t nc = std::min(s.nc_max, g.n - jc);
        const int64_t b_panels = ceil_div(nc, NR);
        for (int64_t pc = 0; pc < g.k; pc += s.kc_max) {  // pc: one KC-deep rank update
            const int64_t kc = std::min(s.kc_max, g.k - pc);
            const float beta = pc == 0 ? g.beta : 1.0f;

            const MatrixView b_panel = offset(B, pc, jc);
            const Range my_b = share(b_panels, s.threads, tid);
            if (!s.b_per_micro_panel)
                pack_b_panels(ker.pack_panel_b, ker.packed_bytes, ker.k_group, b_panel, kc, nc, NR, my_b.first,
                              my_b.last, buf.packed_b);
            if (traffic)  // this thread's share of B, read from memory by packing
                traffic->memory += in_bytes * kc * (std::min(nc, my_b.last * NR) - std::min(nc, my_b.first * NR));
            team_barrier(s);

            for (int64_t blk = 0; blk < s.blocks_per_group; ++blk) {  // ic: the A block in L2
                const int64_t ic = (group * s.blocks_per_group + blk) * s.mc;
                const int64_t mc = std::clamp<int64_t>(g.m - ic, 0, s.mc);
                const Range my_a = share(ceil_div(mc, MR), s.jr_ways, member);
                const bool ir_outside_jr = s.ir_outside_jr;  // A packed panel by panel, in the macro-kernel
                const bool a_by_first_micro_panel = s.a_packed_by_first_micro_panel;  // C not streamed out
                if (mc > 0 && !s.a_in_place && !ir_outside_jr && !a_by_first_micro_panel)
                    pack_a_panels(ker.pack_panel, ker.packed_bytes, ker.k_group, offset(A, ic, pc), mc, kc, MR,
                                  my_a.first, my_a.last, my_packed_a);
                if (s.jr_ways > 1) team_barrier(s);
                const Range my_jr = share(b_panels, s.jr_ways, member);
                const BlockOfC block{ic, jc, mc, nc, kc, beta};
                MacroStep step = macro_step(g, ker, s, block, my_packed_a, buf.packed_b, b_panel, stream_c);
                if (ir_outside_jr) {
                    step.a_block = offset(A, ic, pc);
                    step.a_panels = my_packed_a;
                }
                if (a_by_first_micro_panel) {
                    step.a_block = offset(A, ic, pc);
                    step.a_packed_by_first_micro_panel = my_packed_a;
                }
                if (s.a_in_place) {
                    step.a_source = static_cast<const float*>(offset(A, ic, pc).data);
                    step.lda = g.lda;
                }
                if (mc > 0 && sharing != nullptr)
                    run_shared_step(*sharing, step, b_buffer);
                else if (mc > 0)  // one thread's whole step with ir outside jr, else a share of its micro-panels
                    macro_kernel(step, ir_outside_jr ? Range{0, step_units(step)} : my_jr, b_buffer);
                if (traffic && mc > 0)
                    count_step(traffic, s, ker, in_bytes, block,
                               double(std::min(mc, my_a.last * MR) - std::min(mc, my_a.first * MR)),
                               double(std::min(nc, my_jr.last * NR) - std::min(nc, my_jr.first * NR)),
                               double(my_jr.last - my_jr.first), ir_outside_jr);
                if (s.jr_ways > 1) team_barrier(s);
            }
            ++steps_done;
            // A team repacks B after the barrier: help the others with this step's panels before it.
            if (sharing != nullptr && s.threads > 1) help_until_others_reach(*sharing, steps_done, b_buffer);
            team_barrier(s);
        }
    }
}

// The k steps outside the jc loop (Schedule::k_steps_outside_jc: one thread,
// one block of A): for each KC step, the block of A packed once, then each
// L2-sized B panel packed and run against it. Column slices of a team share
// out their micro-panels as in the five loops (run_shared_step): a helper
// runs them on this thread's packed A and B, which stay put until every
// panel of the step is done.
// Packing is what this order leaves outside the kernel: at 2048^3 on the Zen 4
// (an rdtsc probe around the two calls, 1 thread) A packed at 3.6-4.5 and B at
// 2.9-3.4 bytes per TSC cycle (about 10 and 8 GB/s, half of what one core
// streams from memory), 11-13 when the same panels are packed again from cache:
// about 2% of the call. Tried against it, none faster (`RIDGE_NUM_THREADS=1
// ridge-ab OLD NEW 2048 2048 2048 9-21`): the next B panel's source prefetched
// a share per tile over the current panel (into L1, L2 or non-temporally; all
// of it or the last quarter or half), B's packing rate unchanged and the call
// 0.999-1.005; while packing, A's panel 2 or 4 ahead prefetched 1.001-1.004
// (its rate within the noise) and B's next panel 0.991-0.998 (B's rate no
// higher, lower into L1); the B panels swept in alternate directions from one
// KC step to the next (the last panel's C still in cache) 0.988-1.004; the
// packing buffers on 2 MiB pages (madvise) 1.001-1.002. The caller's B on 2 MiB
// pages raised B's rate only to 3.7-3.9. At 1024^3 (A and B 4 MiB each, read
// from memory all the same) A packed at 3.9-4.2 and B at 4.0-4.5: about 4% of
// the call. A's packing k steps at a time (pack.cpp's kChunk) 1 or 4 instead of
// 16 ran at the same rate, 64 at 2.7; its source prefetched non-temporally 2 or
// 4 panels ahead 3.6-3.8 against 4.1-4.2. B packed a micro-panel at a time
// instead (2048^3), its source prefetched during the last 16-64 tiles of the
// micro-panel before: B packed 2.3x as fast (6.5-7.6 bytes per cycle against
// 2.8-2.9 without the prefetch, the same order) and the call 0.985-0.995: the
// kernel loses what the packing saves; with only the first 1-3 lines of each
// column prefetched (for the L2 streamer to follow) B packed at 3.3-4.2 and the
// call ran 0.988-0.999.
void run_k_steps_outside_jc(const GemmArgs& g, const GemmKernel& ker, const Schedule& s, const Buffers& buf,
                            Traffic* traffic, bool stream_c, const PanelSharing* sharing, char* b_buffer) {
    const double in_bytes = dtype_bytes(g.input);
    const int64_t MR = ker.MR, NR = ker.NR;
    const MatrixView A{g.a, g.lda, g.trans_a, dtype_bytes(g.input)};
    const MatrixView B{g.b, g.ldb, g.trans_b, dtype_bytes(g.input)};
    const int64_t mc = g.m, a_panels = ceil_div(mc, MR);
    for (int64_t pc = 0; pc < g.k; pc += s.kc_max) {  // pc: one KC-deep rank update, the A block in L2
        const int64_t kc = std::min(s.kc_max, g.k - pc);
        const float beta = pc == 0 ? g.beta : 1.0f;
        const bool a_by_first_micro_panel = s.a_packed_by_first_micro_panel;  // C not streamed out
        if (!a_by_first_micro_panel)
            pack_a_panels(ker.pack_panel, ker.packed_bytes, ker.k_group, offset(A, 0, pc), mc, kc, MR, 0, a_panels,
                          buf.packed_a);
        for (int64_t jc = 0; jc < g.n; jc += s.nc_max) {  // jc: the B panel in L2 beside it
            const int64_t nc = std::min(s.nc_max, g.n - jc);
            const int64_t b_panels = ceil_div(nc, NR);
            const MatrixView b_panel = offset(B, pc, jc);
            pack_b_panels(ker.pack_panel_b, ker.packed_bytes, ker.k_group, b_panel, kc, nc, NR, 0, b_panels,
                          buf.packed_b);
            const BlockOfC block{0, jc, mc, nc, kc, beta};
            MacroStep step = macro_step(g, ker, s, block, buf.packed_a, buf.packed_b, b_panel, stream_c);
            if (a_by_first_micro_panel && jc == 0) {  // the first B panel's first micro-panel packs A
                step.a_block = offset(A, 0, pc);
                step.a_packed_by_first_micro_panel = buf.packed_a;
            }
            if (sharing != nullptr)
                run_shared_step(*sharing, step, b_buffer);
            else
                macro_kernel(step, {0, b_panels}, b_buffer);
            if (traffic) {
                traffic->memory += in_bytes * kc * nc;  // B, read from memory by packing
                // A counted with the first B panel of the step: it is packed once per k step.
                count_step(traffic, s, ker, in_bytes, block, jc == 0 ? double(mc) : 0.0, double(nc), double(b_panels),
                           false);
            }
        }
    }
}

// The body every thread of the team runs; `tid` in [0, s.threads).
// `traffic`: this thread's counters, or null when nobody asked for a report.
// `sharing`: this thread's place in a team whose threads share out their
// micro-panels (column or row slices, each a one-thread schedule, or a team schedule
// with one thread per group), or null. b_buffer: a micro-panel of B for
// panels taken over from another thread's step that packs B per micro-panel
// (only a one-thread schedule has such steps, and its own B buffer is free
// once its own steps are done).
void run_thread(const GemmArgs& g, const GemmKernel& ker, const Schedule& s, const Buffers& buf,
                int tid, Traffic* traffic, bool stream_c, const PanelSharing* sharing) {
    char* b_buffer = s.threads == 1 ? buf.packed_b : nullptr;  // a team's buf.packed_b is the shared panel
    if (traffic) traffic->b_panel_nc = s.nc_bound;
    if (ker.thread_begin) ker.thread_begin();
    if (s.k_steps_outside_jc)
        run_k_steps_outside_jc(g, ker, s, buf, traffic, stream_c, sharing, b_buffer);
    else
        run_five_loops(g, ker, s, buf, tid, traffic, stream_c, sharing, b_buffer);
    if (sharing != nullptr) help_until_others_reach(*sharing, kAllStepsDone, b_buffer);
    // Non-temporal stores are weakly ordered: make them globally visible before
    // the team joins or the call returns (a full fence orders them on x86).
    if (stream_c) std::atomic_thread_fence(std::memory_order_seq_cst);
    if (ker.thread_end) ker.thread_end();
}

// All of g on the calling thread: when OpenMP gives a team fewer threads than
// asked (OMP_DYNAMIC, thread limits), no schedule made for the team fits it.
ridge_status run_alone(const GemmArgs& g, const GemmPlan& plan, Workspace& ws) {
    const GemmKernel& ker = *plan.kernel;
    const Schedule one = make_schedule(g, plan, 1);
    Buffers buf;
    if (!reserve(ws, one, ker, &buf)) return RIDGE_OUT_OF_MEMORY;
    run_thread(g, ker, one, buf, 0, plan.traffic, plan.stream_c, nullptr);
    return RIDGE_SUCCESS;
}

// Whether a team splits the columns of C (each thread the five loops on its own
// share, its own B panel and A blocks, no barrier) rather than sharing each B
// panel. Each thread then packs all of A for its columns, as one more jc block
// would; in exchange no thread waits for another at each KC step or reads B
// panels packed into the other core's cache. Worth it while C is at least as
// wide as tall: measured, 2 threads, one process alternating both schedules
// call by call (medians of 25-60 paired ratios), columns / shared: 1024^3
// 1.04, 2048^3 1.02, 768^3 1.06, 1024 x 2048 x 1024 1.05, 512 x 4096 x 1024
// 1.13, 1024^2 x 512 1.04; taller C loses the repacked A: 2048 x 1024 x 1024
// 1.01, 2048 x 1536 x 1024 1.01, 4096 x 512 x 1024 0.94. (Where row slices
// would read op(B) in place, run_blocked splits the rows first:
// row_slices_read_b_in_place.)
bool splits_columns(const GemmArgs& g, const GemmKernel& ker, int threads) {
    return threads > 1 && g.n >= g.m && g.n >= int64_t{threads} * ker.NR;
}

// Whether a team splits the rows of C instead (where it does not split the
// columns: C taller than wide): each thread packs all of op(B) for its rows,
// as a thread splitting columns packs all of A, and again none waits for
// another at each KC step or reads panels packed in the other core's cache.
// C taller than wide has the smaller B to repack. At least two MR panels of
// rows a thread. Measured, 2 threads, one process alternating two builds
// (`RIDGE_NUM_THREADS=2 ridge-ab OLD NEW M N K 11`, medians of the paired
// ratios), rows / shared: 2000 x 200 x 2000 1.067 (TN 1.104, NT 1.071, bf16
// 1.076), 700 x 300 x 5000 1.070, 1024 x 256 x 1024 1.115, 4096 x 200 x 4096
// 1.065, 4096 x 512 x 1024 1.038, 2048 x 1024 x 1024 1.034, 1536 x 768 x 1536
// 1.023, 2048 x 1536 x 2048 1.023, 1000 x 999 x 1000 1.022, 3000 x 2000 x 1000
// 1.007, 1200 x 1100 x 300 1.007. Where C is streamed out, only if MR rows
// are a whole number of cache lines, so that every slice's tiles stay aligned.
bool splits_rows(const GemmArgs& g, const GemmKernel& ker, int threads, bool stream_c) {
    const bool slices_aligned = !stream_c || (ker.MR * int64_t(sizeof(float))) % 64 == 0;
    return threads > 1 && !splits_columns(g, ker, threads) && g.m > g.n && g.m >= int64_t{threads} * 2 * ker.MR &&
           slices_aligned;
}

// Rows `first` to `last` of the problem: the same op(B), those rows of op(A) and C.
GemmArgs row_slice(const GemmArgs& g, int64_t first, int64_t last) {
    GemmArgs s = g;
    const int64_t a_offset = g.trans_a ? first * g.lda : first;  // elements
    s.a = static_cast<const char*>(g.a) + a_offset * int64_t(dtype_bytes(g.input));
    s.c = g.c + first;
    s.m = last - first;
    return s;
}

// Columns `first` to `last` of the problem: all of op(A), those columns of op(B) and C.
GemmArgs column_slice(const GemmArgs& g, int64_t first, int64_t last) {
    GemmArgs s = g;
    const int64_t b_offset = g.trans_b ? first : first * g.ldb;  // elements
    s.b = static_cast<const char*>(g.b) + b_offset * int64_t(dtype_bytes(g.input));
    s.c = g.c + first * g.ldc;
    s.n = last - first;
    return s;
}

// Thread t's share of the columns (splits_columns: whole NR panels) or rows
// (splits_rows: whole MR panels), as equal as they come.
GemmArgs thread_slice(const GemmArgs& g, const GemmKernel& ker, int threads, int t, bool by_rows) {
    if (by_rows) {
        const Range panels = share(ceil_div(g.m, ker.MR), threads, t);
        return row_slice(g, std::min(g.m, panels.first * ker.MR), std::min(g.m, panels.last * ker.MR));
    }
    const Range panels = share(ceil_div(g.n, ker.NR), threads, t);
    return column_slice(g, std::min(g.n, panels.first * ker.NR), std::min(g.n, panels.last * ker.NR));
}

// Whether a team splits the rows of C even where C is as wide as tall, as
// every row slice then reads op(B) in place and packs none of it: op(B)
// within L2, one KC step that does not read C (beta = 0) and a slice of at
// most 16 MR panels, so that every tile of the slice's one step reads B in
// place (all_tiles_read_b_from_l2). Each thread then packs only its own rows
// of A, where a column slice packs all of A (the first micro-panel's tiles
// read all of op(A) from L3, both threads at once) besides reading its
// columns of B in place. At least kMinPanelsPerRowSlice panels a slice: with
// 4 (256^3 on 2 threads) the row slices ran 0.96-1.01 against columns.
// Measured, 2 threads (`RIDGE_NUM_THREADS=2 build/bench/ridge-ab OLD NEW M N
// K 15`, three processes each, an experiment build switching the split):
// 320^3 1.092-1.101, 384^3 1.008-1.047, 448^3 1.013-1.050, 512^3 1.026-1.125,
// 512 x 768 x 512 1.020-1.086, 512 x 1024 x 256 1.000-1.022; where a slice
// packs B in a second KC step instead, 576^3 0.979-0.980 and 640^3
// 0.986-0.991 (hence one step). Row slices start on MR boundaries: C is bit
// for bit what one thread computes.
constexpr int64_t kMinPanelsPerRowSlice = 5;
bool row_slices_read_b_in_place(const GemmArgs& g, const GemmPlan& plan, int threads) {
    const GemmKernel& ker = *plan.kernel;
    if (threads < 2 || g.beta != 0.0f || ceil_div(g.m, ker.MR) < int64_t{threads} * kMinPanelsPerRowSlice) return false;
    const Schedule first_slice = make_schedule(thread_slice(g, ker, threads, 0, true), plan, 1);  // the widest
    return first_slice.tiles_read_b_from_l2 && first_slice.kc_max == g.k;
}

// Whether the threads of a team of slices share out their steps' panels
// (PanelSharing): where a step of the widest slice has at least
// GemmPlan::slice_panels_to_share of them (kSlicePanelsToShare, gemm.h, says
// why): micro-panels of B, or A's panels where the ir loop runs outside jr
// (step_units). Also measured on row slices (2 threads, the small path kept
// off, against sharing): 160 x 100 x 1000 1.153, 256 x 120 x 1000 1.013, 384 x
// 96 x 512 1.025.
bool slices_share_panels(const GemmArgs& g, const GemmKernel& ker, const GemmPlan& plan, int threads, bool by_rows) {
    const GemmArgs widest = thread_slice(g, ker, threads, 0, by_rows);
    const Schedule s = make_schedule(widest, plan, 1);
    const int64_t panels = s.ir_outside_jr ? ceil_div(std::min(widest.m, s.mc), ker.MR)
                                           : ceil_div(std::min(widest.n, s.nc_max), ker.NR);
    return panels >= plan.slice_panels_to_share;
}

// The team splitting the columns of C (splits_columns) or its rows
// (splits_rows, by_rows): each thread's buffers are reserved before any
// thread starts, so running out of memory leaves C untouched. Every slice
// starts on an NR (MR) boundary, so its tiles are the tiles of a one-thread
// run and C comes out the same bit for bit; where C is streamed out, row
// slices start whole cache lines apart (splits_rows), so every slice's full
// tiles stay aligned.
ridge_status run_slices(const GemmArgs& g, const GemmPlan& plan, Workspace& ws, bool by_rows) {
    const GemmKernel& ker = *plan.kernel;
    const int threads = plan.threads;
    auto whole_lines = [](int64_t bytes) { return (bytes + 63) / 64 * 64; };
    int64_t b_bytes = 0, a_bytes = 0;  // per thread: the most any slice's schedule needs
    for (int t = 0; t < threads; ++t) {
        const Schedule s = make_schedule(thread_slice(g, ker, threads, t, by_rows), plan, 1);
        b_bytes = std::max(b_bytes, whole_lines(packed_b_bytes(s, ker)));
        a_bytes = std::max(a_bytes, whole_lines(packed_a_bytes(s, ker)));
        // and at least two A panels, for the panels of others' steps it helps with (PanelSharing::help_a_panels)
        a_bytes = std::max(a_bytes, whole_lines(2 * panel_bytes(ker.MR, s.kc_max, ker.packed_bytes)));
    }
    char* b_base = reinterpret_cast<char*>(ws.packed_b.reserve(size_t(threads * b_bytes / 4)));
    char* a_base = reinterpret_cast<char*>(ws.packed_a.reserve(size_t(threads * a_bytes / 4)));
    if (b_base == nullptr || a_base == nullptr) return RIDGE_OUT_OF_MEMORY;

    // One board per thread for sharing out micro-panels; without them (no
    // memory, or too few panels a step to share) every thread runs just its own.
    const bool share = slices_share_panels(g, ker, plan, threads, by_rows);
    std::unique_ptr<StepBoard[]> boards(share ? new (std::nothrow) StepBoard[size_t(threads)] : nullptr);
    Traffic per_thread[kMaxCountedThreads];
    const bool counting = plan.traffic != nullptr && threads <= kMaxCountedThreads;
    bool short_team = false;
#pragma omp parallel num_threads(threads)
    {
        if (omp_get_num_threads() == threads) {  // else run_alone, below
            const int t = omp_get_thread_num();
            const GemmArgs mine = thread_slice(g, ker, threads, t, by_rows);
            const Schedule s = make_schedule(mine, plan, 1);
            const Buffers buf{b_base + t * b_bytes, a_base + t * a_bytes};
            const PanelSharing sharing{boards.get(), threads, t, buf.packed_a};
            run_thread(mine, ker, s, buf, 0, counting ? &per_thread[t] : nullptr, plan.stream_c,
                       boards ? &sharing : nullptr);
        } else {
#pragma omp single
            short_team = true;
        }
    }
    if (short_team) return run_alone(g, plan, ws);
    if (counting)
        for (int t = 0; t < threads; ++t) *plan.traffic += per_thread[t];
    return RIDGE_SUCCESS;
}

// The five loops over the whole of g (with plan.stream_c every full tile of C must be aligned).
ridge_status run_blocked(const GemmArgs& g, const GemmPlan& plan) {
    const GemmKernel& ker = *plan.kernel;
    Workspace* ws = this_thread_workspace();
    if (ws == nullptr) return RIDGE_OUT_OF_MEMORY;
    if (row_slices_read_b_in_place(g, plan, plan.threads)) return run_slices(g, plan, *ws, true);
    if (splits_columns(g, ker, plan.threads)) return run_slices(g, plan, *ws, false);
    if (splits_rows(g, ker, plan.threads, plan.stream_c)) return run_slices(g, plan, *ws, true);
    const Schedule s = make_schedule(g, plan, std::max(1, plan.threads));

    Buffers buf;
    if (!reserve(*ws, s, ker, &buf)) return RIDGE_OUT_OF_MEMORY;

    if (s.threads == 1) {
        run_thread(g, ker, s, buf, 0, plan.traffic, plan.stream_c, nullptr);
        return RIDGE_SUCCESS;
    }
    // Threads with blocks of A of their own share out their micro-panels (see
    // StepBoard); threads splitting one block's panels (jr_ways > 1) do not.
    std::unique_ptr<StepBoard[]> boards(s.jr_ways == 1 ? new (std::nothrow) StepBoard[size_t(s.threads)] : nullptr);
    // One counter slot per thread, summed after the team joins (no shared writes in the loops).
    Traffic per_thread[kMaxCountedThreads];
    const bool counting = plan.traffic != nullptr && s.threads <= kMaxCountedThreads;
    bool short_team = false;
#pragma omp parallel num_threads(s.threads)
    {
        if (omp_get_num_threads() == s.threads) {  // else run_alone, below
            const int tid = omp_get_thread_num();
            const PanelSharing sharing{boards.get(), s.threads, tid, nullptr};  // a team: never ir outside jr
            run_thread(g, ker, s, buf, tid, counting ? &per_thread[tid] : nullptr, plan.stream_c,
                       boards ? &sharing : nullptr);
        } else {
#pragma omp single
            short_team = true;
        }
    }
    if (short_team) return run_alone(g, plan, *ws);
    if (counting)
        for (int t = 0; t < s.threads; ++t) *plan.traffic += per_thread[t];
    return RIDGE_SUCCESS;
}

}  // namespace

// Streaming stores need each tile's columns to start on a cache line. When C
// itself does not (a malloc'ed C starts 16 bytes into a line) but every column
// is off by the same amount (ldc a multiple of 16 floats; see use_streaming_c),
// the rows from the first aligned one down run as one problem with every full
// tile aligned, and the few rows above it as another, with ordinary stores.
// Both use the same kernel arithmetic, so C is bit for bit what an aligned C
// would get. The aligned rows run first: theirs is the larger reservation, so
// the second cannot fail to get buffers after C has been written.
ridge_status gemm_blocked(const GemmArgs& g, const GemmPlan& plan) {
    const int64_t line_offset = int64_t(reinterpret_cast<uintptr_t>(g.c) % 64) / int64_t(sizeof(float));
    const int64_t head_rows = plan.stream_c && line_offset != 0 ? std::min(g.m, 16 - line_offset) : 0;
    if (head_rows == 0) return run_blocked(g, plan);
    const ridge_status status = head_rows < g.m ? run_blocked(row_slice(g, head_rows, g.m), plan) : RIDGE_SUCCESS;
    if (status != RIDGE_SUCCESS) return status;
    GemmPlan head_plan = plan;
    head_plan.stream_c = false;
    return run_blocked(row_slice(g, 0, head_rows), head_plan);
}

}  // namespace ridge
