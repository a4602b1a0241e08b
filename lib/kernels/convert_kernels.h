// Contiguous array conversions between fp16 and fp32, per ISA.
#pragma once

#include <cstdint>

namespace ridge {

using ConvertF16ToF32 = void (*)(int64_t n, const uint16_t* in, float* out);
using ConvertF32ToF16 = void (*)(int64_t n, const float* in, uint16_t* out);

void convert_f16_to_f32__avx512(int64_t n, const uint16_t* in, float* out);
void convert_f32_to_f16__avx512(int64_t n, const float* in, uint16_t* out);
void convert_f16_to_f32__ref(int64_t n, const uint16_t* in, float* out);
void convert_f32_to_f16__ref(int64_t n, const float* in, uint16_t* out);

}  // namespace ridge
