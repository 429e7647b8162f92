#ifndef CMALLOCSTATS_H
#define CMALLOCSTATS_H

/// Bytes currently handed out by the C allocator, or -1 where unknown.
///
/// glibc 2.33+ only: `uordblks` (in-use bytes in every arena) plus `hblkhd`
/// (in-use bytes of chunks big enough to be mmapped directly, which `uordblks`
/// does not count). Header-only, so the target needs no C source to compile.
#if defined(__has_include)
#if __has_include(<features.h>)
#include <features.h>  /* defines __GLIBC__ on glibc systems */
#endif
#endif

#if defined(__GLIBC__)
#include <malloc.h>
#if __GLIBC_PREREQ(2, 33)
#define CMALLOCSTATS_AVAILABLE 1
static inline long long cmallocstats_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
}
#endif
#endif

#ifndef CMALLOCSTATS_AVAILABLE
static inline long long cmallocstats_bytes_in_use(void) {
    return -1;
}
#endif

#endif
