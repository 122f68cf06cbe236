#pragma once
// RNNWB_SIMD_CLONES: a hot loop built for AVX-512, AVX2 and plain x86-64, the clone the machine
// runs picked by the loader (function multi-versioning), so a portable build keeps its speed.
// Only on functions with internal linkage, called through an exported plain function: clang 14
// builds a single AVX-512 function, without a word, when an earlier declaration lacks the clones
// (SIGILL on an AVX2 processor), and an exported clone's resolver runs while the loader is still
// relocating the library, where the sanitizer trees' coverage hooks in it jumped to an
// unrelocated PLT entry (scripts/sanitize.sh asan on an AMD EPYC without AVX-512).
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
