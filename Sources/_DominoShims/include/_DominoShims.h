// What Domino needs from C that Swift cannot say without a cost on every post: a
// thread-local word read with one load (no `pthread_getspecific`, no `swift_once` for
// a key), the Swift runtime's `swift_tryRetain` called directly (no symbol looked up
// at run time behind a lazily initialized global), and the graph lock's words at a
// static address (no `swift_once` for the `graphLock` global on a walk's hot path);
// and on Linux the two futex calls of `WordLock`'s slow path (a system call that
// Swift cannot make: `syscall` is variadic).
// Swift could hold none of these in a global without such a once, or without taking
// the global's address with `&`, which the thread sanitizer reports as a racing access.
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

/// The graph lock's words (`GraphLock`: each stripe's mutex and pin counts, the word
/// unpins read, the epoch, the walk gate, the link sequence and the words beside it,
/// the limbo flag), in static storage: walks reach them at a fixed address, where a
/// Swift global would cost a `swift_once` at every access. Zero until `GraphLock`
/// initializes the mutexes (nothing locks before that); a zero walk gate is closed,
/// which sends walks to the path that initializes it.
#define DOMINO_GRAPH_WORDS_SIZE 1280
extern unsigned char _domino_graph_words[];

static inline __attribute__((always_inline)) void *_Nonnull _domino_graph_words_address(void) {
    return _domino_graph_words;
}

static inline __attribute__((always_inline)) long _domino_graph_words_size(void) {
    return DOMINO_GRAPH_WORDS_SIZE;
}

/// Waits, on Linux, while the 32-bit word at `word` holds `expected` (a futex wait;
/// it may also return spuriously). `WordLock`'s slow path. Not defined on Apple
/// platforms (os_unfair_lock there); on other systems a yield that returns at once.
void _domino_futex_wait(unsigned int *_Nonnull word, unsigned int expected);

/// Wakes one thread waiting on the word at `word` (a futex wake); nothing on other
/// systems but Apple's, where it is not defined.
void _domino_futex_wake_one(unsigned int *_Nonnull word);

#endif
