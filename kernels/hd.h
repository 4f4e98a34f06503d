// DRAPE_HD marks functions that run on both the host and a CUDA device. DRAPE_INLINE forces the
// heavier constraint functions inline into their launch loop: called out of line, the bend kernel
// ran 1.4x slower on the cpu backend (g++ 12 does not inline it on its own).
#pragma once

#if defined(__CUDACC__)
#define DRAPE_HD __host__ __device__
#define DRAPE_INLINE __forceinline__
#else
#define DRAPE_HD
#define DRAPE_INLINE inline __attribute__((always_inline))
#endif
