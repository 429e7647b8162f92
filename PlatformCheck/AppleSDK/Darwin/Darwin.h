// Stand-in for the few C declarations of Apple's Darwin module that Domino calls
// (PlatformMutex, ThreadLocalSlot, WordLock, Diagnostics): pthread.h, os/lock.h,
// sched.h and stdio.h,
// with the SDK's types, nullability and availability (the SDK spells them with
// __API_AVAILABLE; clang imports either spelling into Swift as @available). Typecheck
// only: nothing here is linked or run.
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.
#ifndef DOMINO_STANDIN_DARWIN_H
#define DOMINO_STANDIN_DARWIN_H

#define DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS \
    __attribute__((availability(macos, introduced=10.4))) \
    __attribute__((availability(ios, introduced=2.0)))

// sys/_pthread/_pthread_types.h: opaque structures sized per data model.
#if defined(__LP64__)
#define __PTHREAD_MUTEX_SIZE__ 56
#define __PTHREAD_MUTEXATTR_SIZE__ 8
#else
#define __PTHREAD_MUTEX_SIZE__ 40
#define __PTHREAD_MUTEXATTR_SIZE__ 8
#endif

struct _opaque_pthread_mutex_t { long __sig; char __opaque[__PTHREAD_MUTEX_SIZE__]; };
struct _opaque_pthread_mutexattr_t { long __sig; char __opaque[__PTHREAD_MUTEXATTR_SIZE__]; };
typedef struct _opaque_pthread_mutex_t __darwin_pthread_mutex_t;
typedef struct _opaque_pthread_mutexattr_t __darwin_pthread_mutexattr_t;
typedef unsigned long __darwin_pthread_key_t;
typedef __darwin_pthread_mutex_t pthread_mutex_t;
typedef __darwin_pthread_mutexattr_t pthread_mutexattr_t;
typedef __darwin_pthread_key_t pthread_key_t;

// stdio.h: FILE is a complete structure in the SDK (so Swift sees
// UnsafeMutablePointer<FILE>); its fields are left out here.
typedef long long fpos_t;
typedef struct __sFILE { unsigned char *_p; int _r; int _w; short _flags; short _file; } FILE;

#pragma clang assume_nonnull begin

// pthread.h
DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS
int pthread_key_create(pthread_key_t *, void (* _Nullable)(void *));
DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS
int pthread_key_delete(pthread_key_t);
DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS
int pthread_mutex_destroy(pthread_mutex_t *);
DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS
int pthread_mutex_init(pthread_mutex_t * __restrict, const pthread_mutexattr_t * _Nullable __restrict);
DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS
int pthread_mutex_lock(pthread_mutex_t *);
DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS
int pthread_mutex_unlock(pthread_mutex_t *);
DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS
int pthread_setspecific(pthread_key_t, const void * _Nullable);
DARWIN_AVAILABLE_SINCE_FIRST_PTHREADS
int pthread_main_np(void);

#pragma clang assume_nonnull end

// os/lock.h (OS_UNFAIR_LOCK_AVAILABILITY; OS_NONNULL_ALL)
#define OS_UNFAIR_LOCK_AVAILABILITY \
    __attribute__((availability(macos, introduced=10.12))) \
    __attribute__((availability(ios, introduced=10.0))) \
    __attribute__((availability(tvos, introduced=10.0))) \
    __attribute__((availability(watchos, introduced=3.0)))
typedef unsigned int uint32_t;
OS_UNFAIR_LOCK_AVAILABILITY
typedef struct os_unfair_lock_s {
    uint32_t _os_unfair_lock_opaque;
} os_unfair_lock, *os_unfair_lock_t;
OS_UNFAIR_LOCK_AVAILABILITY __attribute__((__nonnull__))
void os_unfair_lock_lock(os_unfair_lock_t lock);
OS_UNFAIR_LOCK_AVAILABILITY __attribute__((__warn_unused_result__)) __attribute__((__nonnull__))
_Bool os_unfair_lock_trylock(os_unfair_lock_t lock);
OS_UNFAIR_LOCK_AVAILABILITY __attribute__((__nonnull__))
void os_unfair_lock_unlock(os_unfair_lock_t lock);

// stdlib.h
void exit(int) __attribute__((__noreturn__));

// sched.h (no nullability annotations, no availability)
int sched_yield(void);

// stdio.h (not audited for nullability)
extern FILE *__stdinp;
extern FILE *__stdoutp;
extern FILE *__stderrp;
#define stdin __stdinp
#define stdout __stdoutp
#define stderr __stderrp
int fputs(const char * __restrict, FILE * __restrict);
int fflush(FILE *);

#endif
