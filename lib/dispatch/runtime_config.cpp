// One-time decisions, at first use (ISA, kernels, blocking, crossovers, a profile's
// figures), and the thread count a call may use.
#include "dispatch/dispatch.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "dispatch/paths.h"
#include "kernels/probe.h"
#include "tuning/model.h"
#include "tuning/topology.h"

namespace ridge {
namespace {

thread_local int tl_thread_override = 0;

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return (v != nullptr && *v != '\0') ? v : nullptr;
}

void choose_isa(RuntimeConfig& cfg) {
    const Isa best = best_supported_isa();
    cfg.isa = best;
    cfg.isa_reason.set("best ISA this CPU and OS support (CPUID, XGETBV): %s", isa_name(best));
    const char* forced = env("RIDGE_ISA");
    if (forced == nullptr) return;
    Isa wanted;
    if (!parse_isa(forced, &wanted)) {
        cfg.isa_reason.append("; RIDGE_ISA=%s is not one of amx, avx512bf16, avx512, avx2, ref: ignored", forced);
    } else if (!cpu_supports(wanted)) {
        cfg.isa_reason.append("; RIDGE_ISA=%s is not supported here: ignored", forced);
    } else {
        cfg.isa = wanted;
        cfg.isa_reason.set("forced by RIDGE_ISA=%s", forced);
    }
}

int default_thread_count() {
    if (const char* v = env("RIDGE_NUM_THREADS")) {
        const long n = std::strtol(v, nullptr, 10);
        if (n >= 1) return static_cast<int>(std::min(n, 1024L));
    }
    return std::max(1, omp_get_max_threads());  // honours OMP_NUM_THREADS
}

// The rows of op(A) fp32 packs as one block where the rule is on: from the
// floor (its block 1.5x L2) to a quarter of the library's L3, which is the
// topology's (hwloc's or the fallback), not the L3 ridge-tune measured. Where
// the floor is above the limit (the Zen 5 VM's 4 MiB fallback: 1536 > 1024
// rows) the rule never runs, and the line says so rather than read as on.
void print_one_block_rows(const RuntimeConfig& cfg) {
    if (!cfg.blocked_one_block_of_a) {
        std::fprintf(stderr, "ridge: blocked path: one thread packs op(A) in blocks of MC rows (profile: faster here "
                             "than one block in L3)\n");
        return;
    }
    const GemmChoice& f32 = cfg.gemm(Dtype::f32);
    const long long fewest = a_rows_past_l2(f32.blocking, *f32.kernel);
    const long long most = a_rows_in_l3(f32.blocking, *f32.kernel);
    const long long kc = f32.blocking.KC, l3_kib = machine_topology().l3.size_bytes / 1024;
    if (fewest > most)
        std::fprintf(stderr,
                     "ridge: blocked path: op(A) in blocks of MC rows for every m: one block of all its rows "
                     "would need at least %lld rows (fp32, KC %lld: 1.5x L2) and at most %lld (a quarter of "
                     "the %lld KiB L3)\n", fewest, kc, most, l3_kib);
    else
        std::fprintf(stderr,
                     "ridge: blocked path: one thread packs all of op(A)'s rows as one block for %lld to %lld "
                     "rows (fp32, KC %lld: from 1.5x L2 to a quarter of the %lld KiB L3)\n",
                     fewest, most, kc, l3_kib);
}

void print_config(const RuntimeConfig& cfg) {
    const CacheTopology& topo = machine_topology();
    std::fprintf(stderr, "ridge: ISA %s (%s)\n", isa_name(cfg.isa), cfg.isa_reason.c_str());
    for (const CacheLevel* c : {&topo.l1, &topo.l2, &topo.l3})
        std::fprintf(stderr, "ridge: L%d %lld KiB per core, %d-way, %d B lines [%s]\n", c->level,
                     (long long)(c->size_bytes / 1024), c->ways, c->line_bytes, c->source.c_str());
    for (int i = 0; i < topo.note_count; ++i) std::fprintf(stderr, "ridge: note: %s\n", topo.notes[i].c_str());
    for (Dtype input : {Dtype::f32, Dtype::f16, Dtype::bf16}) {
        const GemmChoice& choice = cfg.gemm(input);
        const BlockingParams& bp = choice.blocking;
        std::fprintf(stderr,
                     "ridge: %s gemm kernel %s, packer %s (MR=%lld NR=%lld), blocking KC=%lld (L1) "
                     "MC=%lld (L2) NC=%lld (L3) from %s\n",
                     dtype_name(input), choice.kernel->name, choice.kernel->pack_name, (long long)bp.MR,
                     (long long)bp.NR, (long long)bp.KC, (long long)bp.MC, (long long)bp.NC,
                     choice.blocking_from_profile ? "the tuned profile" : "the Low et al. model");
    }
    std::fprintf(stderr, "ridge: gemv kernels %s, %s, %s\n", cfg.gemv[0]->name, cfg.gemv[1]->name, cfg.gemv[2]->name);
    for (const GemvKernel* g : cfg.gemv)
        if (g->n_from_memory != nullptr)
            std::fprintf(stderr, "ridge: %s: its own N for an A >= %.4g MiB (from memory), %s\n", g->name,
                         cfg.gemv_from_memory_min_bytes / (1024.0 * 1024.0), g->n_from_memory_name);
    if (!cfg.bf16_reason.empty()) std::fprintf(stderr, "ridge: bf16 path: %s\n", cfg.bf16_reason.c_str());
    for (Dtype input : {Dtype::f32, Dtype::f16, Dtype::bf16})
        if (const GemmKernel* sibling = cfg.gemm(input).in_place_sibling)
            std::fprintf(stderr,
                         "ridge: %s with at most %lld rows or columns of C: the in-place paths on %s's kernels "
                         "(converting; subnormals honoured), which %s lacks\n",
                         dtype_name(input), (long long)kInPlaceSiblingMaxWidth, sibling->name,
                         cfg.gemm(input).kernel->name);
    std::fprintf(stderr, "ridge: default threads %d; a thread per %.3g flops at least (small path: %.3g)\n",
                 cfg.default_threads, cfg.min_flops_per_thread, cfg.small_min_flops_per_thread);
    std::fprintf(stderr,
                 "ridge: fp32 small path up to m*n*k = %.4g (%.4g on one thread, %.4g there with A's columns on "
                 "cache lines; past the first, few rows of C by the one-thread limits on a team too, and the "
                 "other in-place paths' shapes left to them on one thread too) with op(A) <= %.4g floats or in "
                 "blocks of rows of %lld floats (while k x NR is smaller than L1); past one KC step with op(A) "
                 "within that and C within %.4g floats on a team, %.4g on one thread; also past k = KC with "
                 "op(A) beyond and C within %lld floats, a KC step at a time; on one thread, not for an op(A) of more "
                 "than %lld floats (to the bound above) with its columns a multiple of 1 KiB apart (32-row tiles)\n",
                 cfg.small_max_volume, cfg.small_max_volume_alone, cfg.small_max_volume_alone_lined_a,
                 cfg.small_max_a_floats, (long long)cfg.small_a_block_floats, kSmallCDeepKMaxFloats,
                 kSmallCDeepKMaxFloatsAlone, (long long)cfg.small_a_block_floats, (long long)cfg.small_a_block_floats);
    std::fprintf(stderr,
                 "ridge: skinny path (A read once in place) up to n = %lld columns for fp32, %lld bf16, %lld fp16 "
                 "(at most %lld) with A from memory on a call too small for a team, or more than %lld rows and "
                 "A's columns not a multiple of 8 KiB apart; else up to %lld\n",
                 (long long)cfg.skinny_max_columns[int(Dtype::f32)], (long long)cfg.skinny_max_columns[int(Dtype::bf16)],
                 (long long)cfg.skinny_max_columns[int(Dtype::f16)], (long long)kSkinnyMaxN,
                 (long long)kSkinnyWideMinRows, (long long)kSkinnyMaxColumnsShared);
    std::fprintf(stderr, "ridge: C streamed out (non-temporal stores) when written once and >= %.4g MiB (%s)\n",
                 cfg.stream_c_min_bytes / (1024.0 * 1024.0),
                 cfg.stream_c_min_bytes == cfg.last_level_cache_bytes ? "the L3" : "the L3 ridge-tune used: profile");
    if (cfg.gemv_prefetch_elements > 0)
        std::fprintf(stderr, "ridge: GEMV prefetches A %lld elements ahead when A is >= %.4g MiB (the L3)%s\n",
                     (long long)cfg.gemv_prefetch_elements, cfg.gemv_from_memory_min_bytes / (1024.0 * 1024.0),
                     cfg.gemv_prefetch_elements == kGemvPrefetchElements ? "" : " (profile)");
    else
        std::fprintf(stderr, "ridge: GEMV leaves A to the hardware prefetchers (profile: they streamed faster)\n");
    std::fprintf(stderr, "ridge: blocked path: a block of A %s\n",
                 cfg.blocked_a_in_place ? "read in place up to lda 2/3 MC (profile: faster than packing it here)"
                                        : "always packed (reading it in place is a profile's to turn on)");
    std::fprintf(stderr, "ridge: blocked path: %s\n",
                 cfg.blocked_ir_outside_jr
                     ? "a block's ir loop outside jr for A from memory (profile: faster here)"
                     : "the ir loop always inside jr (ir outside jr, for A from memory, is a profile's to turn on)");
    std::fprintf(stderr, "ridge: blocked path: %s\n",
                 cfg.blocked_a_packed_while_computing_from_memory
                     ? "a block of A from memory packed by the first micro-panel's tiles as they compute, for "
                       "few columns of C and A's columns 4 KiB multiples apart (profile: faster here than the "
                       "packing pass)"
                     : "a block of A from memory packed before the tiles (packing it as they compute, for few "
                       "columns of C, is a profile's to turn on)");
    print_one_block_rows(cfg);
    std::fprintf(stderr, "ridge: profile: %s\n", cfg.profile_note.c_str());
}

// Flops per second of `probe`, the best of a few short runs (~25 us each):
// the best, because interruptions only ever make a run slower.
double probe_rate(double (*probe)(int64_t)) {
    probe(2000);  // warm-up: the core may need to power up its 512-bit units
    double best = 0.0;
    for (int rep = 0; rep < 3; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const double flops = probe(1000);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::max(best, flops / s);
    }
    return best;
}

// bf16 can run on the vdpbf16ps kernel or be converted to fp32 while packing.
// vdpbf16ps does twice an FMA's flops per instruction, but not every CPU
// issues it as often: measure both, keep the native kernel only when it is
// faster by a margin that noise cannot fake. RIDGE_ISA=avx512bf16 forces it.
void choose_bf16_path(RuntimeConfig& cfg, bool isa_forced) {
    GemmChoice& choice = cfg.choices[int(Dtype::bf16)];
    if (choice.kernel->isa == Isa::amx) {  // tdpbf16ps: 256x the work of one vdpbf16ps
        cfg.bf16_reason = "AMX tile kernel (AMX-TILE, AMX-BF16, tile state granted by the OS)";
        return;
    }
    if (choice.kernel->isa != Isa::avx512bf16) return;
    if (isa_forced) {
        cfg.bf16_reason = "vdpbf16ps kernel: forced by RIDGE_ISA";
        choice.in_place_sibling = find_gemm_kernel(Dtype::bf16, Isa::avx512);
        return;
    }
    const double native = probe_rate(probe_dpbf16__avx512bf16);
    const double fp32 = probe_rate(probe_fma_f32__avx512);
    char line[160];
    std::snprintf(line, sizeof line, "measured vdpbf16ps %.0f GFLOP/s vs fp32 FMA %.0f GFLOP/s", native * 1e-9,
                  fp32 * 1e-9);
    if (native > 1.2 * fp32) {
        cfg.bf16_reason.set("vdpbf16ps kernel: %s", line);
        choice.in_place_sibling = find_gemm_kernel(Dtype::bf16, Isa::avx512);
        return;
    }
    choice.kernel = find_gemm_kernel(Dtype::bf16, Isa::avx512);
    cfg.bf16_reason.set("converting to fp32 while packing: %s", line);
}

// Whether tuned block sizes suit `kernel`: the driver needs KC in whole k groups
// (bf16 pairs, AMX chunks), MC in whole MR panels and NC in whole NR panels.
bool blocking_fits(const GemmKernel& kernel, const ProfileBlocking& b, FixedText<128>* why) {
    if (b.KC % kernel.k_group != 0)
        why->set("KC=%lld is not a multiple of %d", (long long)b.KC, kernel.k_group);
    else if (b.MC % kernel.MR != 0)
        why->set("MC=%lld is not a multiple of MR=%d", (long long)b.MC, kernel.MR);
    else if (b.NC % kernel.NR != 0)
        why->set("NC=%lld is not a multiple of NR=%d", (long long)b.NC, kernel.NR);
    return why->empty();
}

// Takes the profile's block sizes for each chosen kernel that it has and that fit.
void apply_profile_blocking(const Profile& profile, RuntimeConfig& cfg) {
    for (Dtype input : {Dtype::f32, Dtype::f16, Dtype::bf16}) {
        GemmChoice& choice = cfg.choices[int(input)];
        char key[64];
        profile_kernel_key(dtype_name(input), choice.kernel->name, key, sizeof key);
        const ProfileBlocking* tuned = profile.find(key);
        if (tuned == nullptr) {
            cfg.profile_note.append("; no entry for %s (model used)", key);
            continue;
        }
        FixedText<128> why;
        if (!blocking_fits(*choice.kernel, *tuned, &why)) {
            cfg.profile_note.append("; %s ignored: %s", key, why.c_str());
            continue;
        }
        choice.blocking.KC = tuned->KC;
        choice.blocking.MC = tuned->MC;
        choice.blocking.NC = tuned->NC;
        choice.blocking_from_profile = true;
    }
}

// Finds and reads this CPU's profile (see tuning/profile.h for where it looks).
// RIDGE_PROFILE=none turns profiles off. Anything wrong with the file leaves
// the built-in figures in place, with the reason in profile_note.
void load_and_apply_profile(RuntimeConfig& cfg) {
    const char* forced = env("RIDGE_PROFILE");
    if (forced != nullptr && std::strcmp(forced, "none") == 0) {
        cfg.profile_note.set("none (RIDGE_PROFILE=none)");
        return;
    }
    const CpuSignature here = this_cpu_signature();
    char path[1024];
    const char* source = nullptr;
    if (!profile_path(here, path, sizeof path, &source)) {
        cfg.profile_note.set("none found (ridge-tune writes %s)", path[0] ? path : "?");
        return;
    }
    Profile* profile = new (std::nothrow) Profile;  // ~3 KiB: kept off the stack
    if (profile == nullptr) {
        cfg.profile_note.set("%s not read: out of memory", path);
        return;
    }
    char why[200] = {};
    const ProfileStatus status = load_profile_file(path, here, profile, why, sizeof why);
    if (status != ProfileStatus::loaded) {
        cfg.profile_note.set("%s ignored (%s): %s", path, profile_status_name(status), why);
    } else {
        cfg.profile_note.set("%s (from %s)", path, source);
        apply_profile_blocking(*profile, cfg);
        if (profile->has_small_path) {
            cfg.small_max_volume = profile->small_max_volume;
            if (profile->has_small_alone) cfg.small_max_volume_alone = profile->small_max_volume_alone;
            cfg.small_max_volume_alone_lined_a =
                profile->has_small_alone_lined_a
                    ? std::max(profile->small_max_volume_alone_lined_a, cfg.small_max_volume_alone)
                    : cfg.small_max_volume_alone;
            cfg.small_max_a_floats = profile->small_max_a_floats;
        }
        if (profile->has_skinny_path) cfg.skinny_max_columns[int(Dtype::f32)] = profile->skinny_max_columns;
        if (profile->has_skinny_bf16) cfg.skinny_max_columns[int(Dtype::bf16)] = profile->skinny_max_columns_bf16;
        if (profile->has_skinny_f16) cfg.skinny_max_columns[int(Dtype::f16)] = profile->skinny_max_columns_f16;
        if (profile->has_gemv_prefetch) cfg.gemv_prefetch_elements = profile->gemv_prefetch_elements;
        if (profile->has_stream_c) cfg.stream_c_min_bytes = profile->stream_c_min_bytes;
        if (profile->has_blocked_a_in_place) cfg.blocked_a_in_place = profile->blocked_a_in_place;
        if (profile->has_blocked_ir_outside_jr) cfg.blocked_ir_outside_jr = profile->blocked_ir_outside_jr;
        if (profile->has_blocked_a_packed_while_computing_from_memory)
            cfg.blocked_a_packed_while_computing_from_memory = profile->blocked_a_packed_while_computing_from_memory;
        if (profile->has_blocked_one_block_of_a) cfg.blocked_one_block_of_a = profile->blocked_one_block_of_a;
        if (profile->has_threads) cfg.min_flops_per_thread = profile->min_flops_per_thread;
        if (profile->has_small_threads) cfg.small_min_flops_per_thread = profile->small_min_flops_per_thread;
    }
    delete profile;
}

RuntimeConfig make_config() {
    RuntimeConfig cfg;
    cfg.verbose = env("RIDGE_VERBOSE") != nullptr && std::strcmp(env("RIDGE_VERBOSE"), "0") != 0;
    choose_isa(cfg);
    for (Dtype input : {Dtype::f32, Dtype::f16, Dtype::bf16}) {
        cfg.gemv[int(input)] = find_gemv_kernel(input, cfg.isa);
        GemmChoice& choice = cfg.choices[int(input)];
        choice.kernel = find_gemm_kernel(input, cfg.isa);  // the ref kernels always qualify
        choice.blocking = blocking_from_model(machine_topology(), choice.kernel->MR, choice.kernel->NR,
                                              choice.kernel->packed_bytes, choice.kernel->min_KC);
    }
    choose_bf16_path(cfg, env("RIDGE_ISA") != nullptr && cfg.isa == Isa::avx512bf16);
    const GemmKernel* bf16 = cfg.choices[int(Dtype::bf16)].kernel;
    cfg.choices[int(Dtype::bf16)].blocking =
        blocking_from_model(machine_topology(), bf16->MR, bf16->NR, bf16->packed_bytes, bf16->min_KC);
    cfg.default_threads = default_thread_count();
    const BuiltInCrossovers builtin = builtin_crossovers();
    cfg.small_max_volume = builtin.small_max_volume;
    cfg.small_max_volume_alone = builtin.small_max_volume;
    cfg.small_max_volume_alone_lined_a = builtin.small_max_volume;
    cfg.small_max_a_floats = kSmallPathMaxAFloats;
    // Half of L2 per block of A's rows on the small path. On the Zen 4 a quarter
    // ran 0.993 and all of L2 0.986 at 512^3, 1.002 / 1.003 at 384^3
    // (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW n n n 21`, experiment builds).
    cfg.small_a_block_floats = int64_t(machine_topology().l2.size_bytes / 2 / sizeof(float));
    for (Dtype input : {Dtype::f32, Dtype::f16, Dtype::bf16})
        cfg.skinny_max_columns[int(input)] = builtin.skinny_max_columns[int(input)];
    cfg.min_flops_per_thread = kMinFlopsPerThread;
    cfg.small_min_flops_per_thread = kSmallMinFlopsPerThread;
    const CacheLevel& llc = machine_topology().l3;
    cfg.last_level_cache_bytes = double(llc.size_bytes) * std::max(1, llc.cores_sharing);
    cfg.stream_c_min_bytes = cfg.last_level_cache_bytes;
    cfg.gemv_from_memory_min_bytes = cfg.last_level_cache_bytes;
    cfg.gemv_prefetch_elements = builtin.gemv_prefetch_elements;
    load_and_apply_profile(cfg);
    if (cfg.verbose) print_config(cfg);
    return cfg;
}

}  // namespace

bool exceeds_last_level_cache(const RuntimeConfig& cfg, double bytes) { return bytes > cfg.last_level_cache_bytes; }

// Whether op(B) is larger than each thread's share of the last-level cache
// (GemmPlan::b_beyond_cache_share; the whole cache for one thread). A team's
// slices of B, their packed blocks of A and C compete for the one cache, and
// the blocked path's rules that read B where it is instead of packing it
// (first_tile_reads_b_source, all_tiles_read_b_source in blocked_schedule.cpp)
// paid there as they do from memory. Measured, 2 threads (each its own
// columns), one process alternating two builds (`RIDGE_NUM_THREADS=2 ridge-ab
// OLD NEW M N K 15`, medians of the paired ratios), against the whole cache:
// 256 x 1024 x 1024 1.155, TN 1.041, 256 x 768 x 1024 1.160, 256 x 1024 x 768
// 1.11 (an experiment build taking B as from memory); where it changes
// nothing, 512 x 1024 x 1024 (first tiles only) 0.992, 128 x 512 x 512 0.994,
// 1 thread 256 x 1024 x 1024 1.012. Only for those rules: taken as
// b_from_memory everywhere, the skinny path on C^T lost (2 threads, NT 16 x
// 1000 x 1000 0.874, 30 x 700 x 1000 0.958).
bool b_beyond_cache_share(const RuntimeConfig& cfg, const GemmArgs& g, int threads) {
    const double b_bytes = double(dtype_bytes(g.input)) * double(g.k) * double(g.n);
    return exceeds_last_level_cache(cfg, b_bytes * double(std::max(1, threads)));
}

const RuntimeConfig& runtime_config() {
    static const RuntimeConfig cfg = make_config();
    return cfg;
}

void set_thread_count_override(int threads) { tl_thread_override = std::max(0, threads); }
int thread_count_override() { return tl_thread_override; }

// Set by ridge_set_global_num_threads (and the other libraries' names for it,
// api/thread_control.cpp) from any thread, read by every call: an atomic, so a
// call sees either the old or the new count.
std::atomic<int> g_process_threads{0};

void set_process_thread_count(int threads) {
    g_process_threads.store(std::max(0, threads), std::memory_order_relaxed);
}

int wanted_thread_count() {
    if (tl_thread_override > 0) return tl_thread_override;
    const int process = g_process_threads.load(std::memory_order_relaxed);
    return process > 0 ? process : runtime_config().default_threads;
}

}  // namespace ridge
