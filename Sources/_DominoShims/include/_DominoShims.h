// What Domino needs from C that Swift cannot say without a cost on every post: a
// thread-local word read with one load (no `pthread_getspecific`, no `swift_once` for
// a key), and the Swift runtime's `swift_tryRetain` called directly (no symbol looked
// up at run time behind a lazily initialized global).
//
// No system headers here: the Apple-platform typecheck (PlatformCheck/apple-targets.sh)
// parses this header against a stand-in SDK that has none.
#ifndef DOMINO_SHIMS_H
#define DOMINO_SHIMS_H

/// This thread's `ThreadState`, or null until its first post, request or fire (and
/// again after the thread's exit destructor freed it). Only its own thread reads or
/// writes it.
extern __thread void *_Nullable _domino_thread_state;

static inline __attribute__((always_inline)) void *_Nullable _domino_thread_state_get(void) {
    return _domino_thread_state;
}

static inline __attribute__((always_inline)) void _domino_thread_state_set(void *_Nullable state) {
    _domino_thread_state = state;
}

/// The Swift runtime's retain that fails once the object's deinit has begun (the
/// entry point behind weak references, part of the runtime's stable ABI; C calling
/// convention). Declared here because Swift reserves runtime names for the runtime.
extern void *_Nullable swift_tryRetain(void *_Nonnull object);

static inline __attribute__((always_inline)) void *_Nullable _domino_try_retain(void *_Nonnull object) {
    return swift_tryRetain(object);
}

#endif
