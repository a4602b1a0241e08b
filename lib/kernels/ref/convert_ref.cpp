// Portable array conversions fp16 <-> fp32 (see convert.h for the rounding).
#include "kernels/convert.h"
#include "kernels/convert_kernels.h"

namespace ridge {

void convert_f16_to_f32__ref(int64_t n, const uint16_t* in, float* out) {
    for (int64_t i = 0; i < n; ++i) out[i] = f16_to_f32(in[i]);
}

void convert_f32_to_f16__ref(int64_t n, const float* in, uint16_t* out) {
    for (int64_t i = 0; i < n; ++i) out[i] = f32_to_f16(in[i]);
}

}  // namespace ridge
