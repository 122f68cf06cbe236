#pragma once
// RNNWB_SIMD_CLONES: a hot loop built for AVX-512, AVX2 and plain x86-64, the clone the machine
// runs picked by the loader (function multi-versioning), so a portable build keeps its speed.
// Not under ThreadSanitizer: clang instruments the clones' resolver, which the dynamic loader
// runs while relocating the program, before TSan's runtime exists, and every test linking it
// died with a segmentation fault in __tsan_func_entry before main (scripts/sanitize.sh tsan).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RNNWB_NO_SIMD_CLONES
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define RNNWB_NO_SIMD_CLONES
#endif

#if defined(__x86_64__) && !defined(RNNWB_NO_SIMD_CLONES)
#define RNNWB_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RNNWB_SIMD_CLONES
#endif
