// Portable attribute macros shared by host-only and CUDA translation units.
#pragma once

#if defined(__CUDACC__)
#define TANDEM_HOST_DEVICE __host__ __device__
#define TANDEM_INLINE __forceinline__
#else
#define TANDEM_HOST_DEVICE
#define TANDEM_INLINE inline __attribute__((always_inline))
#endif
