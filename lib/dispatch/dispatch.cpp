// The entry points' plan for a call: the path (paths.cpp's rules on runtime_config.cpp's
// figures), the blocking and the threads, then the driver; and the report of what ran.
#include "dispatch/dispatch.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>

#include "dispatch/paths.h"
#include "gemm/workspace.h"
#include "kernels/convert_kernels.h"
#include "report/report.h"

namespace ridge {

// GEMM with a single column (or row) of C is a GEMV: it reads A (or B) once
// with 2 flops per element, and packing would only add traffic.
//   n == 1: c = alpha * op(A) * b + beta * c
//   m == 1: c^T = alpha * op(B)^T * a^T + beta * c^T   (c a row of stride ldc)
bool as_gemv(const GemmArgs& g, GemvArgs* v) {
    if (g.n != 1 && g.m != 1) return false;
    v->input = g.input;
    v->alpha = g.alpha, v->beta = g.beta, v->y = g.c;
    if (g.n == 1) {
        v->trans = g.trans_a, v->m = g.trans_a ? g.k : g.m, v->n = g.trans_a ? g.m : g.k;
        v->a = g.a, v->lda = g.lda;
        v->x = g.b, v->incx = g.trans_b ? g.ldb : 1;  // op(B)(p, 0)
        v->incy = 1;
    } else {
        v->trans = !g.trans_b, v->m = g.trans_b ? g.n : g.k, v->n = g.trans_b ? g.k : g.n;
        v->a = g.b, v->lda = g.ldb;
        v->x = g.a, v->incx = g.trans_a ? 1 : g.lda;  // op(A)(0, p)
        v->incy = g.ldc;
    }
    return true;
}

// The ideal traffic of a GEMM: each matrix moved once, C read too when beta != 0.
double ideal_gemm_bytes(const GemmArgs& g) {
    const double p = dtype_bytes(g.input);
    return p * (double(g.m) * g.k + double(g.k) * g.n) + 4.0 * g.m * g.n * (g.beta != 0.0f ? 2 : 1);
}

ridge_report base_report(const char* routine, Dtype input, const char* path, const char* kernel, int threads) {
    ridge_report r = {};
    r.routine = routine;
    r.input = dtype_name(input);
    r.path = path;
    r.kernel = kernel;
    r.threads = threads;
    r.hw_counters = hw_counter_status();
    r.measured_memory_bytes = -1;
    return r;
}

ridge_status run_gemm(const GemmArgs& args, const GemmPlan& plan);

GemmPlan blocked_plan_for_call(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g, int threads) {
    GemmPlan plan;
    plan.kernel = choice.kernel;
    plan.threads = threads;
    plan.b_from_memory = b_comes_from_memory(cfg, g);
    plan.b_beyond_cache_share = b_beyond_cache_share(cfg, g, plan.threads);
    plan.a_from_memory = a_comes_from_memory(cfg, g);
    plan.c_outgrows_cache = c_outgrows_cache(cfg, g);
    plan.a_rows_within_cache = a_rows_within_cache(cfg, g);
    plan.b_within_l2 = b_within_l2(g);
    plan.blocking = blocked_path_blocking(cfg, choice, g, plan.b_from_memory);
    set_blocked_path_limits(&plan);
    return plan;
}

namespace {

// The plan for a call past the small path's own limit: the blocked path, or
// one of the paths that read a few rows or columns in place, on the threads
// such a call gets.
GemmPlan packed_or_in_place_plan(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& args) {
    const double flops = 2.0 * double(args.m) * double(args.n) * double(args.k);
    GemmPlan plan = blocked_plan_for_call(cfg, choice, args, threads_for(flops, cfg.min_flops_per_thread));
    const InPlacePath in_place = in_place_path(cfg, choice, args);
    plan.skinny_m_path = in_place == InPlacePath::skinny_m;
    plan.skinny_path = in_place == InPlacePath::skinny;
    plan.skinny_trans_a_path = in_place == InPlacePath::skinny_trans_a;
    plan.rows_in_place_path = in_place == InPlacePath::rows_in_place;
    plan.skinny_trans_b_path = in_place == InPlacePath::skinny_trans_b;
    // The kernel whose skinny and few-rows kernels the in-place paths run (rows in place: the chosen one's).
    if (in_place != InPlacePath::none && in_place != InPlacePath::rows_in_place)
        plan.kernel = &in_place_reader(choice, args);
    if (plan.skinny_m_path) plan.few_rows_k_pass = few_rows_k_pass(args.m, args.k);
    if (plan.skinny_trans_a_path) plan.few_rows_k_pass = few_rows_k_pass(args.n, args.k);
    return plan;
}

}  // namespace

ridge_status dispatch_gemm(const GemmArgs& args) {
    GemvArgs as_vector;
    if (args.k > 0 && args.alpha != 0.0f && as_gemv(args, &as_vector)) return dispatch_gemv(as_vector);
    const RuntimeConfig& cfg = runtime_config();
    const GemmChoice& choice = cfg.gemm(args.input);
    // The small path first: of the blocking it needs KC only, worked out only
    // for k beyond the kernel's (small_path_k_steps); at 32^3 (~1300 cycles a
    // call) planning the blocked path it does not take was several percent,
    // and zeroing a whole GemmPlan (a `rep stos`) about 1%, so an unreported
    // call goes straight to the path.
    SmallPathCall small;
    if (takes_small_path(cfg, choice, args, &small)) {
        if (!reporting_enabled())
            return gemm_small(args, *choice.kernel, small.threads, small.a_block_floats, small.k_steps.KC);
        GemmPlan plan;
        plan.kernel = choice.kernel;
        plan.small_path = true;
        plan.small_a_block_floats = small.a_block_floats;
        plan.threads = small.threads;
        plan.blocking = small.k_steps;
        return run_gemm(args, plan);
    }
    GemmPlan plan = packed_or_in_place_plan(cfg, choice, args);
    if (small_path_alone(cfg, plan, args) || small_c_deep_k(cfg, plan, args)) {
        plan.small_path = true;
        plan.small_a_block_floats = small_path_a_block_floats(*plan.kernel, args.k);
        return run_gemm(args, plan);
    }
    if (deep_enough_for_small_path(cfg, plan, args)) {
        plan.small_path = true;
        plan.small_k_steps_outside = true;
        return run_gemm(args, plan);
    }
    plan.stream_c = use_streaming_c(cfg, plan, args);
    return run_gemm(args, plan);
}

namespace {

// Whether no two problems of a batch write the same element of C, so that
// threads may run them at once: always for a strided batch (its API checks
// stride_c); a list of C is sorted by address and each span compared with the
// next (a span: the elements from C's first to its last, ldc * (n - 1) + m).
// A list that cannot be sorted (out of memory) counts as overlapping: the
// batch then runs in order, on one thread, which is right either way.
bool lists_c_apart(const GemmBatch& batch) {
    if (batch.c_list == nullptr || batch.count < 2 || batch.shape.m == 0 || batch.shape.n == 0) return true;
    const GemmArgs& g = batch.shape;
    const uintptr_t span = uintptr_t((g.ldc * (g.n - 1) + g.m) * int64_t(sizeof(float)));
    const std::unique_ptr<uintptr_t[]> starts(new (std::nothrow) uintptr_t[size_t(batch.count)]);
    if (!starts) return false;
    for (int64_t i = 0; i < batch.count; ++i) starts[i] = reinterpret_cast<uintptr_t>(batch.c_list[i]);
    std::sort(starts.get(), starts.get() + batch.count);
    for (int64_t i = 1; i < batch.count; ++i)
        if (starts[i] - starts[i - 1] < span) return false;
    return true;
}

}  // namespace

ridge_status dispatch_gemm_batch(const GemmBatch& batch) {
    if (batch.count <= 0) return RIDGE_SUCCESS;
    const GemmArgs& first = batch.shape;
    const RuntimeConfig& cfg = runtime_config();
    const GemmKernel& kernel = *cfg.gemm(first.input).kernel;
    const double flops = 2.0 * double(first.m) * double(first.n) * double(first.k);
    GemvArgs as_vector;
    // Whole problems per thread only for problems too short to split; a problem
    // that a call would thread is threaded one after another (an odd count of
    // whole problems would leave a thread idle at the end).
    // Each problem runs on one thread: the small path up to the limit a call
    // on one thread goes by (small_path_limit: by where the first problem's A
    // starts, and not where a team would leave the call to an in-place path).
    const double limit_alone = small_path_limit(cfg, cfg.gemm(first.input), first, 1, flops);
    const bool small = first.k > 0 && first.alpha != 0.0f && !as_gemv(first, &as_vector) && threads_for(flops) == 1 &&
                       limit_alone >= 0 && use_small_path(cfg, kernel, first, limit_alone);
    const int team = small && lists_c_apart(batch)
                         ? std::max(1, int(std::min<int64_t>(threads_for(flops * double(batch.count)), batch.count)))
                         : 1;
    // On one thread too a batch of small-path problems runs in gemm_batch_small_f32:
    // planned once, not once per problem (batch of 64 of 32^3, 1 thread: 168-172
    // -> 179-182 GFLOP/s in alternating runs).
    if (!small) {
        for (int64_t i = 0; i < batch.count; ++i) {
            const ridge_status status = dispatch_gemm(batch.problem(i));
            if (status != RIDGE_SUCCESS) return status;
        }
        return RIDGE_SUCCESS;
    }
    const int64_t a_block_floats = small_path_a_block_floats(kernel, first.k);
    const int64_t k_step = small_path_k_steps(cfg, cfg.gemm(first.input), first).KC;
    if (!reporting_enabled()) return gemm_batch_small_f32(batch, kernel, team, a_block_floats, k_step);
    const CallMeter meter;
    const ridge_status status = gemm_batch_small_f32(batch, kernel, team, a_block_floats, k_step);
    ridge_report r = base_report("gemm_batch", first.input, "small", kernel.name, team);
    r.m = first.m, r.n = first.n, r.k = first.k;
    r.flops = flops * double(batch.count);
    r.ideal_bytes = r.memory_bytes = ideal_gemm_bytes(first) * double(batch.count);  // each problem in place, once
    r.seconds = meter.seconds();
    r.measured_memory_bytes = meter.measured_memory_bytes();
    if (status == RIDGE_SUCCESS) record_report(r);
    return status;
}

// Runs the plan; when reporting, counts and records what the schedule moved.
ridge_status run_gemm(const GemmArgs& g, const GemmPlan& plan) {
    if (!reporting_enabled()) return gemm(g, plan);
    Traffic traffic;
    GemmPlan counted = plan;
    counted.traffic = &traffic;
    const CallMeter meter;
    const ridge_status status = gemm(g, counted);
    const double seconds = meter.seconds(), measured = meter.measured_memory_bytes();
    const char* path = plan.small_path      ? "small"
                       : plan.skinny_path   ? "skinny"
                       : plan.skinny_m_path ? "skinny_m"
                       : plan.skinny_trans_a_path ? "skinny_trans_a"
                       : plan.rows_in_place_path ? "rows_in_place"
                       : plan.skinny_trans_b_path ? "skinny_trans_b"
                       : plan.stream_c      ? "blocked_stream_c"
                                            : "blocked";
    ridge_report r = base_report("gemm", g.input, path, plan.kernel->name, plan.threads);
    r.m = g.m, r.n = g.n, r.k = g.k;
    r.flops = 2.0 * g.m * g.n * g.k;
    r.ideal_bytes = ideal_gemm_bytes(g);
    if (plan.small_path || plan.skinny_path || plan.skinny_m_path || plan.skinny_trans_a_path ||
        plan.rows_in_place_path || plan.skinny_trans_b_path) {
        // In place: each operand read once from memory, C once; the few-rows
        // path's passes over k read and write C (C^T) once more each; the skinny
        // sweep also reads and writes C from L2 once per chunk of k steps; the small
        // path reads op(A) from L2 once per NR columns of C (B's columns, from
        // L2 once per block of A's rows each, then stay in L1 while the block passes),
        // and with its KC steps outside its tiles reads and writes C from L2 once per step after the first.
        r.memory_bytes = r.ideal_bytes;
        if (plan.few_rows_k_pass > 0 && (plan.skinny_m_path || plan.skinny_trans_a_path))
            r.memory_bytes += 8.0 * g.m * g.n * double((g.k - 1) / plan.few_rows_k_pass);
        if (plan.skinny_path || plan.skinny_trans_b_path) {  // on C^T: n and m swapped
            const bool on_c_transposed = !plan.skinny_path;
            const bool from_memory = on_c_transposed ? plan.b_from_memory : plan.a_from_memory;
            const int64_t chunk = skinny_sweep_chunk(g, *plan.kernel, from_memory, on_c_transposed);
            r.l2_to_l1_bytes = 8.0 * g.m * g.n * double((g.k + chunk - 1) / chunk);
        }
        if (plan.skinny_m_path) r.l2_to_l1_bytes = skinny_m_l2_to_l1_bytes(g, *plan.kernel);
        if (plan.skinny_trans_a_path) r.l2_to_l1_bytes = skinny_n_trans_a_l2_to_l1_bytes(g, *plan.kernel);
        if (plan.rows_in_place_path)  // A's columns once; op(B)'s panels once per block of 32 rows
            r.l2_to_l1_bytes = double(dtype_bytes(g.input)) * double(g.m) * double(g.k) +
                               double((g.m + 31) / 32) * double(rows_in_place_packed_b_bytes(g.n, g.k));
        if (plan.small_path) {
            const int64_t width = small_column_tile_width(g, *plan.kernel);
            const double column_tiles = double((g.n + width - 1) / width);
            const double row_blocks = double(small_row_blocks(g, *plan.kernel, plan.small_a_block_floats));
            r.l2_to_l1_bytes =
                4.0 * (double(g.m) * double(g.k) * column_tiles + double(g.k) * double(g.n) * row_blocks);
            if (plan.small_k_steps_outside) {
                const int64_t step = kc_step_depth(*plan.kernel, plan.blocking.KC);
                r.l2_to_l1_bytes += 8.0 * double(g.m) * double(g.n) * double((g.k - 1) / step);
            }
        }
    } else {
        r.MR = plan.blocking.MR, r.NR = plan.blocking.NR, r.KC = plan.blocking.KC;
        r.MC = plan.blocking.MC, r.NC = traffic.b_panel_nc > 0 ? traffic.b_panel_nc : plan.blocking.NC;
        r.memory_bytes = traffic.memory, r.l3_to_l2_bytes = traffic.l3_to_l2, r.l2_to_l1_bytes = traffic.l2_to_l1;
    }
    r.seconds = seconds;
    r.measured_memory_bytes = measured;
    if (status == RIDGE_SUCCESS) record_report(r);
    return status;
}

}  // namespace ridge

namespace ridge {

// A GEMV thread must stream enough of A to pay for waking it: 256 Ki elements
// is 1 MiB of fp32, ~30 us at one core's DRAM bandwidth, well above a fork/join.
constexpr double kMinGemvElementsPerThread = 256.0 * 1024.0;

ridge_status dispatch_gemv(const GemvArgs& args) {
    const RuntimeConfig& cfg = runtime_config();
    const GemvKernel* ker = cfg.gemv[int(args.input)];
    const double elements = double(args.m) * double(args.n);
    int threads = omp_in_parallel() ? 1 : wanted_thread_count();
    threads = int(std::min<double>(threads, std::max(1.0, elements / kMinGemvElementsPerThread)));
    const double p = dtype_bytes(args.input);
    const bool a_from_memory = p * elements >= cfg.gemv_from_memory_min_bytes;
    const int64_t prefetch = a_from_memory ? cfg.gemv_prefetch_elements : 0;
    const GemvKernel kernel = a_from_memory ? from_memory(*ker) : *ker;
    if (!reporting_enabled()) return gemv(args, kernel, threads, prefetch);
    // The report names the N that runs: the kernel's own from memory where it took that.
    const char* ran = !args.trans && kernel.n != ker->n ? ker->n_from_memory_name : ker->name;
    const CallMeter meter;
    const ridge_status status = gemv(args, kernel, threads, prefetch);
    ridge_report r = base_report("gemv", args.input, prefetch > 0 ? "gemv_prefetch" : "gemv", ran, threads);
    r.m = args.trans ? args.n : args.m, r.n = 1, r.k = args.trans ? args.m : args.n;  // as y = op(A) x
    r.flops = 2.0 * elements;
    // A and x once, y written (and read when beta != 0): the kernels read A exactly once.
    r.ideal_bytes = p * (elements + r.k) + 4.0 * r.m * (args.beta != 0.0f ? 2 : 1);
    r.memory_bytes = r.ideal_bytes;
    r.seconds = meter.seconds();
    r.measured_memory_bytes = meter.measured_memory_bytes();
    if (status == RIDGE_SUCCESS) record_report(r);
    return status;
}

ridge_status dispatch_gemm_f16_output(GemmArgs args, uint16_t* c, int64_t ldc) {
    if (args.m == 0 || args.n == 0) return RIDGE_SUCCESS;
    if ((args.alpha == 0.0f || args.k == 0) && args.beta == 1.0f) return RIDGE_SUCCESS;
    const bool avx512 = runtime_config().isa >= Isa::avx512;
    const ConvertF16ToF32 widen = avx512 ? convert_f16_to_f32__avx512 : convert_f16_to_f32__ref;
    const ConvertF32ToF16 narrow = avx512 ? convert_f32_to_f16__avx512 : convert_f32_to_f16__ref;
    AlignedBuffer c32;  // this call's own: the workspace's buffers are the driver's
    float* tmp = c32.reserve(size_t(args.m * args.n));
    if (tmp == nullptr) return RIDGE_OUT_OF_MEMORY;
    if (args.beta != 0.0f)
        for (int64_t j = 0; j < args.n; ++j) widen(args.m, c + j * ldc, tmp + j * args.m);
    args.c = tmp;
    args.ldc = args.m;
    const ridge_status status = dispatch_gemm(args);
    if (status != RIDGE_SUCCESS) return status;
    for (int64_t j = 0; j < args.n; ++j) narrow(args.m, tmp + j * args.m, c + j * ldc);
    return RIDGE_SUCCESS;
}

}  // namespace ridge
