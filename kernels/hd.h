// DRAPE_HD marks functions that run on both the host and a CUDA device.
#pragma once

#if defined(__CUDACC__)
#define DRAPE_HD __host__ __device__
#else
#define DRAPE_HD
#endif
