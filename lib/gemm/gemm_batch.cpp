// Many small problems of one shape (a strided batch, or one group of MKL's
// group batch): each problem is too small to split across threads (its whole
// run is a few microseconds, less than waking a second thread costs), so the
// batch is split instead: each thread runs whole problems on the small path,
// and the problems' C do not overlap (the strided API checks its stride;
// dispatch_gemm_batch checks a list of C before it spreads one), so no thread
// waits for another.
#include "gemm/gemm.h"
#include "gemm/workspace.h"

namespace ridge {

namespace {

// Entry i of a list of operands of `input` elements (GemmBatch::a_list, b_list).
const void* listed(const void* list, Dtype input, int64_t i) {
    if (list == nullptr) return nullptr;
    if (input == Dtype::f32) return static_cast<const float* const*>(list)[i];
    return static_cast<const uint16_t* const*>(list)[i];
}

}  // namespace

GemmArgs GemmBatch::problem(int64_t i) const {
    GemmArgs g = shape;
    if (c_list != nullptr) {
        g.a = listed(a_list, shape.input, i);
        g.b = listed(b_list, shape.input, i);
        g.c = c_list[i];
        return g;
    }
    const int64_t eb = dtype_bytes(shape.input);
    // A and B may be NULL when nothing reads them (alpha = 0, k = 0): they stay NULL.
    if (shape.a != nullptr) g.a = static_cast<const char*>(shape.a) + i * stride_a * eb;
    if (shape.b != nullptr) g.b = static_cast<const char*>(shape.b) + i * stride_b * eb;
    if (shape.c != nullptr) g.c = shape.c + i * stride_c;
    return g;
}

namespace {

// The calling thread holds the small path's buffer for `floats` (none needed when 0).
bool reserved(size_t floats) { return floats == 0 || reserve_small_packed_a(floats) != nullptr; }

// Problems [first_problem, last_problem) on the calling thread, one after another.
void run_problems(const GemmBatch& batch, int64_t first_problem, int64_t last_problem, const GemmKernel& ker,
                  int64_t a_block_floats, int64_t k_step) {
    for (int64_t i = first_problem; i < last_problem; ++i)
        gemm_small_f32(batch.problem(i), ker, 1, a_block_floats, k_step);
}

}  // namespace

ridge_status gemm_batch_small_f32(const GemmBatch& batch, const GemmKernel& ker, int threads,
                                  int64_t a_block_floats, int64_t k_step) {
    // Same shape, same need: a thread that holds this much never allocates again in this batch.
    const size_t need = gemm_small_workspace_floats(batch.shape, ker);
    const int64_t count = batch.count;
    // Every thread reserves before any thread writes a C: out of memory leaves every C untouched.
    return run_once_every_thread_reserved(
        threads, [need](float*&) { return reserved(need); },
        [&](float*, int64_t t, int64_t parts) {
            run_problems(batch, count * t / parts, count * (t + 1) / parts, ker, a_block_floats, k_step);
        });
}

}  // namespace ridge
