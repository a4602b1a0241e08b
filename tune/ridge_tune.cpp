// ridge-tune: run once per machine. Reads the caches (hwloc, checked, measured
// where doubtful), prints the model's blocking and what each memory level must
// supply, refines the block sizes of the kernels ridge runs here and its
// crossovers by a bounded search, and writes the per-machine profile the
// library loads at first use.
//
//   ridge-tune [--budget SECONDS] [--exhaustive] [--output FILE] [--quiet]
//   ridge-tune --print
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "asked_kernel.h"
#include "dispatch/dispatch.h"
#include "profile_writer.h"
#include "tuning/model.h"

namespace {

using namespace ridge_tune;

struct Options {
    double budget = 60.0;
    bool exhaustive = false;
    bool print = false;
    std::string output;
};

// The read sweep's largest working set: far beyond any per-core L3 share, so
// its last points are memory.
constexpr int64_t kSweepMaxBytes = int64_t(512) << 20;
// Set aside from the budget for the crossovers and writing the file: 26 s,
// of which the GEMV step takes 2-4 (search_gemv_prefetch) and the blocked
// path's two rules 1-6 (each measured twice where the first pays:
// rule_verdict.h). It was 16 s: on the Intel VM of model 207 two tuner runs
// then cut the skinny crossovers short (out of time at 96 columns for fp32,
// 64 for fp16) and the small path's at 256^3 (its team limit then left to the
// library's figure: cut_short.h). With 26 s, the small path's searches first
// and the AVX2 search within its time (search.cpp: kFinalMinRoundsOnlyWhenAsked),
// a run took 52 s there, the small path's searches to their ends.
constexpr double kCrossoverSeconds = 26.0;

void usage() {
    std::fprintf(stderr,
                 "usage: ridge-tune [--budget SECONDS] [--exhaustive] [--output FILE]\n"
                 "       ridge-tune --print      which profile the library uses, and what is in it\n");
}

bool parse_args(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--budget" && i + 1 < argc) {
            o->budget = std::atof(argv[++i]);
            if (!(o->budget >= 10.0)) {
                std::fprintf(stderr, "ridge-tune: --budget needs at least 10 seconds\n");
                return false;
            }
        } else if (a == "--exhaustive") {
            o->exhaustive = true;
        } else if (a == "--print") {
            o->print = true;
        } else if (a == "--output" && i + 1 < argc) {
            o->output = argv[++i];
        } else {
            usage();
            return false;
        }
    }
    return true;
}

std::string signature_text(const ridge::CpuSignature& s) {
    return std::string(s.vendor) + " family " + std::to_string(s.family) + " model " + std::to_string(s.model) +
           " [" + s.features + "]";
}

// `ridge-tune --print`: the profile the library will load, and whether it loads.
int print_profile() {
    const ridge::CpuSignature sig = ridge::this_cpu_signature();
    char path[1024];
    const char* source = nullptr;
    const bool exists = ridge::profile_path(sig, path, sizeof path, &source);
    std::printf("CPU: %s\n", signature_text(sig).c_str());
    if (!exists) {
        std::printf("profile: none (ridge-tune would write %s, from %s); the library uses its model\n", path,
                    source ? source : "?");
        return 0;
    }
    ridge::Profile profile;
    char why[256] = {};
    const ridge::ProfileStatus st = ridge::load_profile_file(path, sig, &profile, why, sizeof why);
    std::printf("profile: %s (from %s): %s%s%s\n", path, source, ridge::profile_status_name(st), why[0] ? ": " : "",
                why);
    std::printf("library: %s\n", ridge::runtime_config().profile_note.c_str());
    std::ifstream in(path);
    std::cout << in.rdbuf() << "\n";
    return st == ridge::ProfileStatus::loaded ? 0 : 1;
}

// Jiffies the CPUs spent busy (user, nice, system, irq, softirq, steal) and
// in all, from /proc/stat's first line; false where it cannot be read.
bool cpu_jiffies(double* busy, double* total) {
    FILE* f = std::fopen("/proc/stat", "r");
    if (f == nullptr) return false;
    double v[8] = {};
    const int got = std::fscanf(f, "cpu %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                                &v[6], &v[7]);
    std::fclose(f);
    if (got != 8) return false;
    *busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];  // idle (3) and iowait (4) left out
    *total = *busy + v[3] + v[4];
    return true;
}

// Timings are only worth keeping on a quiet machine: say so when it is not.
// What other work runs is measured over half a second while this process
// sleeps, not read from the load average: that is a minute's moving average,
// and right after a build (the main job runs ridge-tune next) it stood at
// 1.6-1.8 on these 2 CPUs for a minute with nothing else running, so the
// warning fired on every main job. Steal time counts: on a VM it is another
// guest's work on this one's CPUs.
void warn_if_busy() {
    double busy0 = 0, total0 = 0, busy1 = 0, total1 = 0;
    if (!cpu_jiffies(&busy0, &total0)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    if (!cpu_jiffies(&busy1, &total1) || total1 <= total0) return;
    const int cpus = omp_get_num_procs();
    const double busy_cpus = cpus * (busy1 - busy0) / (total1 - total0);  // CPUs' worth of other work
    if (busy_cpus > 0.25)
        std::printf("warning: other work kept %.2f of %d CPUs busy over half a second: it will skew the timings; "
                    "rerun when quiet\n",
                    busy_cpus, cpus);
}

void print_topology(const TunerTopology& t) {
    std::printf("\nCaches (per core share used by the model; source: hwloc if it passes the checks, else the\n"
                "read-bandwidth knee, else the documented fallback):\n");
    for (const CacheFigure& f : t.level) {
        std::printf("  L%d: hwloc %lld KiB %d-way %d B x%d cores%s%s; knee %lld KiB; using %lld KiB %d-way [%s]; "
                    "read %.1f GB/s\n",
                    f.level, (long long)(f.hwloc.size_bytes / 1024), f.hwloc.ways, f.hwloc.line_bytes,
                    f.hwloc.cores_sharing, f.hwloc_passed ? "" : ", rejected: ", f.hwloc_rejection.c_str(),
                    (long long)(f.measured_bytes / 1024), (long long)(f.chosen.size_bytes / 1024), f.chosen.ways,
                    f.source.c_str(), f.read_gbps);
    }
    std::printf("  memory: read %.1f GB/s (one thread)\n", t.memory_read_gbps);
}

// The kernels ridge runs by default here, each with the sizes its search
// averages over; then the AVX2 kernel where it runs only when asked.
std::vector<KernelSearch> kernels_to_search(const TunerTopology& topo) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    std::vector<KernelSearch> out;
    for (ridge::Dtype input : {ridge::Dtype::f32, ridge::Dtype::bf16, ridge::Dtype::f16}) {
        KernelSearch s;
        s.input = input;
        s.kernel = cfg.gemm(input).kernel;
        s.model = ridge::blocking_from_model(topo.model_input(), s.kernel->MR, s.kernel->NR, s.kernel->packed_bytes,
                                             s.kernel->min_KC);
        s.sizes = input == ridge::Dtype::f32 ? std::vector<int64_t>{512, 1024, 2048} : std::vector<int64_t>{1024, 2048};
        out.push_back(s);
    }
    if (const ridge::GemmKernel* avx2 = avx2_kernel_only_when_asked(*out.front().kernel)) {
        KernelSearch s;
        s.kernel = avx2;
        s.model = ridge::blocking_from_model(topo.model_input(), avx2->MR, avx2->NR, avx2->packed_bytes, avx2->min_KC);
        // Where MC splits m (search_blocking_mc tries 3/4 of the model's MC,
        // which splits 512 rows as the model's does here).
        s.sizes = {1024, 2048};
        s.only_when_asked = true;
        out.push_back(s);
    }
    return out;
}

void print_search(const KernelSearch& s) {
    std::printf("  %s %s: model KC=%lld MC=%lld NC=%lld -> chosen KC=%lld MC=%lld NC=%lld (%s)\n",
                ridge::dtype_name(s.input), s.kernel->name, (long long)s.model.KC, (long long)s.model.MC,
                (long long)s.model.NC, (long long)s.chosen.KC, (long long)s.chosen.MC, (long long)s.chosen.NC,
                s.note.c_str());
    for (size_t i = 0; i < s.sizes.size() && i < s.chosen_gflops.size(); ++i)
        std::printf("      n=%-5lld model %7.1f GFLOP/s, chosen %7.1f (%+.1f%%)\n", (long long)s.sizes[i],
                    s.model_gflops[i], s.chosen_gflops[i], 100.0 * (s.chosen_gflops[i] / s.model_gflops[i] - 1));
}

// Seconds of the search budget for the AVX2 kernel where it runs only when
// asked: its MC stage and final comparison at 1024^3 and 2048^3 (about 0.2 s
// a round of one point here). Its model point, KC 512 and MC 896, ran 0.96-0.98 of
// MC 640-672 at 2048^3 on the Intel VM (an A block of 688 rows, 1.4 MB, in a
// 2 MB L2; `RIDGE_ISA=avx2 PROFILE_B=... ridge-ab LIB LIB 2048 2048 2048 9`),
// 86% of the AVX2 peak in the main job, beside issue 2's 85%.
constexpr double kOnlyWhenAskedSeconds = 8.0;

void run_searches(TuneRun& run, const Budget& budget) {
    run.searches = kernels_to_search(run.topology);
    // fp16 is converted to fp32 while packing and runs fp32's microkernel on
    // fp32 panels: the same cache footprint, so fp32's result carries over.
    const KernelSearch* f32 = nullptr;
    const bool asked_too = run.searches.back().only_when_asked;
    const double left = std::max(5.0, budget.left() - kCrossoverSeconds);
    const double for_asked = asked_too ? std::min(kOnlyWhenAskedSeconds, 0.25 * left) : 0.0;
    const double for_searches = left - for_asked;
    const double bf16_share = 0.35;
    std::printf("\nSearch (budget %.0f s left; interleaved rounds, medians):\n", budget.left());
    for (KernelSearch& s : run.searches) {
        if (s.only_when_asked) {
            search_blocking_mc(s, for_asked);
            s.note += " (MC alone: a kernel run here only under RIDGE_ISA)";
            print_search(s);
            continue;
        }
        if (s.input == ridge::Dtype::f16 && f32 != nullptr && std::strcmp(f32->kernel->name, s.kernel->name) == 0 &&
            s.kernel->packed_bytes == 4) {
            s.chosen = f32->chosen;
            s.note = "fp32's searched point: same microkernel on fp32 panels (fp16 converted while packing)";
            print_search(s);
            continue;
        }
        const double seconds = s.input == ridge::Dtype::f32 ? (1 - bf16_share) * for_searches : bf16_share * for_searches;
        search_blocking(s, seconds);
        print_search(s);
        if (s.input == ridge::Dtype::f32) f32 = &s;
    }
}

void run_crossovers(TuneRun& run, const Budget& budget) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const KernelSearch& f32 = run.searches.front();
    // First, as the searches below spend whatever budget is left: 2-4 s here (one pass to
    // fill A, then 2 x 4 calls a round from memory).
    run.gemv = search_gemv_prefetch(9);
    run.a_in_place = search_a_in_place(*f32.kernel, f32.chosen, 9);  // (under a second here)
    run.ir_outside_jr = search_ir_outside_jr(*f32.kernel, f32.chosen, 5);  // (about 3 s on the Intel VM)
    run.a_packed_while_computing = search_a_packed_while_computing(*f32.kernel, f32.chosen, 5);  // (~3 s, Zen 4)
    // 15 rounds: its gain is 1-2% on the Zen 5, where 7 rounds read 1.000-1.020 from run to run and 15
    // 1.008-1.028 (five runs of six above 1.01); 1024^3 here, about 2 s.
    run.one_block_of_a = search_one_block_of_a(*f32.kernel, f32.chosen, 15);
    search_thread_threshold(*f32.kernel, f32.chosen, std::max(2.0, budget.left() / 2), &run.crossover);
    search_small_thread_threshold(*f32.kernel, f32.chosen, std::max(2.0, budget.left() / 3), &run.crossover);
    const double per_thread =
        run.crossover.min_flops_per_thread > 0 ? run.crossover.min_flops_per_thread : cfg.min_flops_per_thread;
    const double small_per_thread = run.crossover.small_min_flops_per_thread > 0
                                        ? run.crossover.small_min_flops_per_thread
                                        : cfg.small_min_flops_per_thread;
    // The small path's limits before the skinny path's: they decide the path of
    // every call up to a few hundred cubed, on one thread and on teams, where
    // the skinny ones decide shapes of a few columns, whose built-in limits
    // stand where a search is cut short. With the skinny searches first (4096
    // rows from memory, ~1 s a width), two tuner runs on the Intel VM of model
    // 207 ran out of time at 256^3 in the small path's, leaving its team limit
    // to the library's figure (cut_short.h).
    search_small_crossover(*f32.kernel, f32.chosen, cfg.default_threads, per_thread, small_per_thread,
                           cfg.small_max_a_floats, std::max(2.0, 0.6 * budget.left()), &run.crossover);
    search_small_crossover_lined_a(*f32.kernel, f32.chosen, cfg.small_max_a_floats,
                                   std::max(2.0, budget.left() / 2), &run.crossover);
    search_skinny_crossover(*f32.kernel, f32.chosen, ridge::Dtype::f32, std::max(3.0, budget.left() / 2),
                            &run.crossover);
    // 16-bit A on the kernels its searches chose (their crossover comes earlier: paths.cpp).
    for (ridge::Dtype input : {ridge::Dtype::bf16, ridge::Dtype::f16})
        for (const KernelSearch& s : run.searches)
            if (s.input == input) {
                search_skinny_crossover(*s.kernel, s.chosen, input, std::max(2.0, budget.left() / 2), &run.crossover);
                break;
            }
    if (f32.kernel->small_f32 == nullptr) run.crossover.small_max_volume = cfg.small_max_volume;
    for (const std::string& line : run.gemv.lines) run.crossover.lines.push_back(line);
    for (const std::string& line : run.a_in_place.lines) run.crossover.lines.push_back(line);
    for (const std::string& line : run.ir_outside_jr.lines) run.crossover.lines.push_back(line);
    for (const std::string& line : run.a_packed_while_computing.lines) run.crossover.lines.push_back(line);
    for (const std::string& line : run.one_block_of_a.lines) run.crossover.lines.push_back(line);
    run.small_max_a_floats = cfg.small_max_a_floats;
    std::printf("\nCrossovers:\n");
    for (const std::string& line : run.crossover.lines) std::printf("  %s\n", line.c_str());
    // Beside each figure, the one the library used before this run (the built-in
    // one, or the profile it loaded). A figure not measured is left out of the
    // new profile, and the library's built-in one applies.
    auto measured = [](double v) { return v > 0 ? "" : " (not measured)"; };
    if (run.crossover.small_not_measured.empty())
        std::printf("  small path up to m*n*k = %.4g (before this run %.4g)\n", run.crossover.small_max_volume,
                    cfg.small_max_volume);
    else
        std::printf("  small path limit not measured (%s): left out of the profile (before this run %.4g)\n",
                    run.crossover.small_not_measured.c_str(), cfg.small_max_volume);
    if (run.crossover.small_alone_measured)
        std::printf("  small path on one thread up to m*n*k = %.4g (before this run %.4g)\n",
                    run.crossover.small_max_volume_alone, cfg.small_max_volume_alone);
    else
        std::printf("  small path on one thread: not measured beyond the library's own limit, left out of the "
                    "profile (before this run %.4g)\n", cfg.small_max_volume_alone);
    if (run.crossover.small_max_volume_alone_lined_a > 0)
        std::printf("  small path on one thread with A's columns on cache lines up to m*n*k = %.4g (before this run "
                    "%.4g)\n", run.crossover.small_max_volume_alone_lined_a, cfg.small_max_volume_alone_lined_a);
    std::printf("  a thread per %.3g flops%s on the blocked path (before %.3g), %.3g%s on the small path (before %.3g)\n",
                run.crossover.min_flops_per_thread, measured(run.crossover.min_flops_per_thread),
                cfg.min_flops_per_thread, run.crossover.small_min_flops_per_thread,
                measured(run.crossover.small_min_flops_per_thread), cfg.small_min_flops_per_thread);
    if (run.gemv.elements >= 0)
        std::printf("  GEMV prefetches an A from memory %lld elements ahead (0: not at all; before this run %lld)\n",
                    (long long)run.gemv.elements, (long long)cfg.gemv_prefetch_elements);
    if (const int64_t bytes = measured_stream_c_min_bytes(run); bytes > 0)
        std::printf("  C streamed out from %.4g MiB on, the measured L3 (before this run %.4g MiB)\n",
                    double(bytes) / (1024.0 * 1024.0), cfg.stream_c_min_bytes / (1024.0 * 1024.0));
    if (run.a_in_place.in_place >= 0)
        std::printf("  blocked path reads a block of A in place: %s (before this run %s)\n",
                    run.a_in_place.in_place ? "yes" : "no", cfg.blocked_a_in_place ? "yes" : "no");
    if (run.ir_outside_jr.ir_outside >= 0)
        std::printf("  blocked path runs the ir loop outside jr for A from memory: %s (before this run %s)\n",
                    run.ir_outside_jr.ir_outside ? "yes" : "no", cfg.blocked_ir_outside_jr ? "yes" : "no");
    if (run.a_packed_while_computing.from_memory >= 0)
        std::printf("  blocked path packs A from memory while computing, for few columns of C: %s (before this run "
                    "%s)\n", run.a_packed_while_computing.from_memory ? "yes" : "no",
                    cfg.blocked_a_packed_while_computing_from_memory ? "yes" : "no");
    if (run.one_block_of_a.one_block >= 0)
        std::printf("  blocked path packs all of A's rows as one block where they fit a quarter of L3 (and overflow "
                    "L2 by half): %s (before this run %s)\n", run.one_block_of_a.one_block ? "yes" : "no",
                    cfg.blocked_one_block_of_a ? "yes" : "no");
    for (ridge::Dtype input : {ridge::Dtype::f32, ridge::Dtype::bf16, ridge::Dtype::f16})
        if (run.crossover.skinny_max_columns[int(input)] > 0)
            std::printf("  %s skinny path up to n = %lld columns (before this run %lld)\n", ridge::dtype_name(input),
                        (long long)run.crossover.skinny_max_columns[int(input)],
                        (long long)cfg.skinny_max_columns[int(input)]);
}

void run_exhaustive(TuneRun& run) {
    std::printf("\nExhaustive grid (validation):\n");
    for (const KernelSearch& s : run.searches) {
        if (!s.searched) continue;
        const GridResult g = exhaustive_grid(s);
        run.grids.emplace_back(&s, g);
        std::printf("  %s %s: %d points, %.0f s\n", ridge::dtype_name(s.input), s.kernel->name, g.points, g.seconds);
        for (size_t z = 0; z < g.sizes.size(); ++z)
            std::printf("      n=%-5lld grid best %7.1f (KC=%lld MC=%lld NC=%lld); chosen %7.1f = %.1f%%; model %7.1f = %.1f%%\n",
                        (long long)g.sizes[z], g.best_gflops[z], (long long)g.best_blocking[z].KC,
                        (long long)g.best_blocking[z].MC, (long long)g.best_blocking[z].NC, g.chosen_gflops[z],
                        100 * g.chosen_gflops[z] / g.best_gflops[z], g.model_gflops[z],
                        100 * g.model_gflops[z] / g.best_gflops[z]);
    }
}

// Writes the profile and reads it back the way the library will.
bool write_profile(const TuneRun& run, const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << profile_json(run).dump(2) << "\n";
        if (!out) {
            std::fprintf(stderr, "ridge-tune: cannot write %s\n", tmp.c_str());
            return false;
        }
    }
    std::filesystem::rename(tmp, path, ec);  // atomic: a library starting now sees the old or the new file
    if (ec) {
        std::fprintf(stderr, "ridge-tune: cannot move %s to %s: %s\n", tmp.c_str(), path.c_str(), ec.message().c_str());
        return false;
    }
    ridge::Profile check;
    char why[256] = {};
    const ridge::ProfileStatus st = ridge::load_profile_file(path.c_str(), run.cpu, &check, why, sizeof why);
    std::printf("\nProfile: %s (%s%s%s)\n", path.c_str(), ridge::profile_status_name(st), why[0] ? ": " : "", why);
    return st == ridge::ProfileStatus::loaded;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    if (!parse_args(argc, argv, &opt)) return 2;
    if (opt.print) return print_profile();
    const Budget budget(opt.budget);
    TuneRun run;
    run.cpu = ridge::this_cpu_signature();
    run.budget_seconds = opt.budget;
    std::string path = opt.output;
    const char* named = std::getenv("RIDGE_PROFILE");
    if (path.empty() && named != nullptr && std::strcmp(named, "none") == 0) {
        std::fprintf(stderr, "ridge-tune: RIDGE_PROFILE=none turns profiles off: name a file with --output\n");
        return 2;
    }
    if (path.empty()) {
        char where[1024];
        const char* source = nullptr;
        ridge::profile_path(run.cpu, where, sizeof where, &source);
        path = where;
    }
    if (path.empty()) {
        std::fprintf(stderr, "ridge-tune: no place for the profile (set RIDGE_PROFILE or HOME), or use --output\n");
        return 1;
    }
    std::printf("ridge-tune %s on %s, %d threads; budget %.0f s\n", ridge_version(), signature_text(run.cpu).c_str(),
                omp_get_max_threads(), opt.budget);
    warn_if_busy();
    std::fflush(stdout);
    run.topology = probe_caches(kSweepMaxBytes);
    print_topology(run.topology);
    run.model = model_table(run.topology);
    print_model_table(run.model, run.topology);
    std::fflush(stdout);
    run_searches(run, budget);
    run_crossovers(run, budget);
    run.seconds = budget.elapsed();
    std::printf("\nTuned in %.1f s.\n", run.seconds);
    if (opt.exhaustive) run_exhaustive(run);
    return write_profile(run, path) ? 0 : 1;
}
