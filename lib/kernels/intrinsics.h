// The x86 intrinsics, for every kernel file and kernel header: include this,
// never <immintrin.h> itself.
//
// GCC 12's AVX-512 headers build their "undefined" vectors by initializing a
// variable from itself (avx512fintrin.h: `__m512 __Y = __Y;`), and -Wall then
// reports (maybe-)uninitialized wherever a kernel inlines such an intrinsic
// (_mm512_castps512_ps256, _mm512_extractf32x8_ps, ...): 1780 false warnings
// in one build of the library (GCC bug 105593, fixed in GCC 13). GCC checks a
// warning against the diagnostic state at the line it points to, here inside
// the header, so ignoring the two warnings for the header's lines alone
// silences them and leaves them on for the kernels' own code.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
