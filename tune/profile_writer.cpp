#include "profile_writer.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "ridge/ridge.h"

namespace ridge_tune {
namespace {

using Json = nlohmann::ordered_json;

Json blocking_json(const ridge::BlockingParams& b) { return Json{{"KC", b.KC}, {"MC", b.MC}, {"NC", b.NC}}; }

Json per_size(const std::vector<int64_t>& sizes, const std::vector<double>& values) {
    Json out = Json::object();
    for (size_t i = 0; i < sizes.size() && i < values.size(); ++i)
        out[std::to_string(sizes[i])] = std::round(values[i] * 10) / 10;
    return out;
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return text;
}

Json cache_json(const CacheFigure& f) {
    Json hwloc = f.hwloc.level == 0 ? Json(nullptr)
                                    : Json{{"size_bytes", f.hwloc.size_bytes},
                                           {"ways", f.hwloc.ways},
                                           {"line_bytes", f.hwloc.line_bytes},
                                           {"cores_sharing", f.hwloc.cores_sharing}};
    return Json{{"level", f.level},
                {"hwloc", hwloc},
                {"hwloc_passed_checks", f.hwloc_passed},
                {"hwloc_rejected_because", f.hwloc_rejection},
                {"measured_knee_bytes", f.measured_bytes},
                {"used", {{"size_bytes_per_core", f.chosen.size_bytes},
                          {"ways", f.chosen.ways},
                          {"line_bytes", f.chosen.line_bytes},
                          {"cores_sharing", f.chosen.cores_sharing}}},
                {"source", f.source},
                {"read_gbps_one_thread", std::round(f.read_gbps * 10) / 10}};
}

Json topology_json(const TunerTopology& t) {
    Json sweep = Json::array();
    for (const BandwidthPoint& p : t.sweep) sweep.push_back({p.bytes, std::round(p.gbps * 10) / 10});
    return Json{{"caches", {cache_json(t.level[0]), cache_json(t.level[1]), cache_json(t.level[2])}},
                {"memory_read_gbps_one_thread", std::round(t.memory_read_gbps * 10) / 10},
                {"read_sweep_bytes_gbps", sweep}};
}

const KernelSearch* search_for(const TuneRun& run, ridge::Dtype input, const ridge::GemmKernel* k) {
    for (const KernelSearch& s : run.searches)
        if (s.input == input && s.kernel == k) return &s;
    return nullptr;
}

Json kernel_json(const TuneRun& run, const ModelRow& row) {
    Json out{{"isa", ridge::isa_name(row.kernel->isa)},
             {"MR", row.kernel->MR},
             {"NR", row.kernel->NR},
             {"model", blocking_json(row.model)}};
    out["intensity_needed_at_n2048"] = {{"L1", row.intensity.l1},
                                        {"L2", row.intensity.l2},
                                        {"L3", row.intensity.l3},
                                        {"memory", row.intensity.memory}};
    if (row.peak_gflops > 0) {
        out["peak_gflops"] = std::round(row.peak_gflops);
        out["binds"] = row.binds;
    }
    const KernelSearch* s = search_for(run, row.input, row.kernel);
    if (s != nullptr && s->searched) {
        out["chosen"] = blocking_json(s->chosen);
        out["how"] = s->note;
        out["gflops_model"] = per_size(s->sizes, s->model_gflops);
        out["gflops_chosen"] = per_size(s->sizes, s->chosen_gflops);
        Json trials = Json::array();
        for (const Trial& t : s->trials) {
            Json ratio = Json::array();
            for (double r : t.ratio) ratio.push_back(std::round(r * 1000) / 1000);
            trials.push_back({{"KC", t.blocking.KC},
                              {"MC", t.blocking.MC},
                              {"NC", t.blocking.NC},
                              {"gflops", std::round(t.gflops * 10) / 10},
                              {"ratio_to_current_per_size", ratio}});
        }
        out["trials"] = trials;
    } else if (s != nullptr) {
        out["chosen"] = blocking_json(s->chosen);
        out["how"] = s->note;
    } else {
        out["chosen"] = blocking_json(row.model);
        out["how"] = "not searched (not the kernel ridge runs by default here): the model's point";
    }
    return out;
}

Json validation_json(const TuneRun& run) {
    Json out = Json::array();
    for (const auto& [s, grid] : run.grids) {
        Json sizes = Json::object();
        for (size_t z = 0; z < grid.sizes.size(); ++z)
            sizes[std::to_string(grid.sizes[z])] = {{"grid_best", grid.best_gflops[z]},
                                                    {"grid_best_blocking", blocking_json(grid.best_blocking[z])},
                                                    {"chosen", grid.chosen_gflops[z]},
                                                    {"model", grid.model_gflops[z]},
                                                    {"chosen_pct_of_best", 100 * grid.chosen_gflops[z] / grid.best_gflops[z]},
                                                    {"model_pct_of_best", 100 * grid.model_gflops[z] / grid.best_gflops[z]}};
        out.push_back({{"kernel", profile_key(s->input, *s->kernel)},
                       {"grid_points", grid.points},
                       {"seconds", grid.seconds},
                       {"sizes", sizes}});
    }
    return out;
}

}  // namespace

std::string profile_key(ridge::Dtype input, const ridge::GemmKernel& k) {
    char key[128];
    ridge::profile_kernel_key(ridge::dtype_name(input), k.name, key, sizeof key);
    return key;
}

nlohmann::ordered_json profile_json(const TuneRun& run) {
    Json j;
    j["format"] = "ridge-profile";
    j["format_version"] = 1;
    j["ridge_version"] = ridge_version();
    j["created"] = utc_now();
    j["tuning_seconds"] = std::round(run.seconds * 10) / 10;
    j["budget_seconds"] = run.budget_seconds;
    j["cpu"] = {{"vendor", run.cpu.vendor},
                {"family", run.cpu.family},
                {"model", run.cpu.model},
                {"features", run.cpu.features}};
    j["topology"] = topology_json(run.topology);
    Json kernels = Json::object();
    for (const ModelRow& row : run.model) kernels[profile_key(row.input, *row.kernel)] = kernel_json(run, row);
    j["kernels"] = kernels;
    if (run.crossover.small_not_measured.empty()) {
        j["small_path"] = {{"max_volume", run.crossover.small_max_volume}, {"max_a_floats", run.small_max_a_floats}};
        if (run.crossover.small_alone_measured)
            j["small_path"]["max_volume_alone"] = run.crossover.small_max_volume_alone;
        if (run.crossover.small_max_volume_alone_lined_a > 0)
            j["small_path"]["max_volume_alone_lined_a"] = run.crossover.small_max_volume_alone_lined_a;
    }
    // fp32's figure is the one a skinny_path must have; the 16-bit ones where measured.
    const int64_t* skinny = run.crossover.skinny_max_columns;
    if (skinny[int(ridge::Dtype::f32)] > 0) {
        Json columns = {{"max_columns", skinny[int(ridge::Dtype::f32)]}};
        if (skinny[int(ridge::Dtype::bf16)] > 0) columns["max_columns_bf16"] = skinny[int(ridge::Dtype::bf16)];
        if (skinny[int(ridge::Dtype::f16)] > 0) columns["max_columns_f16"] = skinny[int(ridge::Dtype::f16)];
        j["skinny_path"] = columns;
    }
    // What was measured (0: never paid, or one core): the library keeps its own figure for the rest.
    Json threads = Json::object();
    if (run.crossover.min_flops_per_thread > 0) threads["min_flops_per_thread"] = run.crossover.min_flops_per_thread;
    if (run.crossover.small_min_flops_per_thread > 0)
        threads["small_min_flops_per_thread"] = run.crossover.small_min_flops_per_thread;
    if (!threads.empty()) j["threads"] = threads;
    if (run.gemv.elements >= 0) j["gemv"] = {{"prefetch_elements", run.gemv.elements}};
    if (const int64_t bytes = measured_stream_c_min_bytes(run); bytes > 0)
        j["stream_c"] = {{"min_bytes", bytes}, {"source", "the L3 measured here (hwloc's rejected)"}};
    Json blocked = Json::object();
    if (run.a_in_place.in_place >= 0) blocked["a_in_place"] = run.a_in_place.in_place == 1;
    if (run.ir_outside_jr.ir_outside >= 0) blocked["ir_outside_jr"] = run.ir_outside_jr.ir_outside == 1;
    if (run.a_packed_while_computing.from_memory >= 0)
        blocked["a_packed_while_computing_from_memory"] = run.a_packed_while_computing.from_memory == 1;
    if (run.one_block_of_a.one_block >= 0) blocked["one_block_of_a"] = run.one_block_of_a.one_block == 1;
    if (!blocked.empty()) j["blocked_path"] = blocked;
    j["crossover_measurements"] = run.crossover.lines;
    if (!run.grids.empty()) j["validation_exhaustive"] = validation_json(run);
    return j;
}

// Where hwloc's L3 was rejected and the sweep found one, the library streams C
// out past the measured L3 rather than past its own fallback (4 MiB): a C
// within the L3 a caller sees is written with ordinary stores (paths.cpp:
// use_streaming_c has the measurements).
int64_t measured_stream_c_min_bytes(const TuneRun& run) {
    const CacheFigure& l3 = run.topology.level[2];
    if (l3.source != "measured" || l3.chosen.size_bytes <= 0) return 0;
    return l3.chosen.size_bytes * std::max(1, l3.chosen.cores_sharing);
}

}  // namespace ridge_tune
