#include "_DominoShims.h"

__thread void *_Nullable _domino_thread_state = 0;

_Alignas(128) unsigned char _domino_graph_words[DOMINO_GRAPH_WORDS_SIZE];

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void _domino_futex_wait(unsigned int *word, unsigned int expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, (void *)0, (void *)0, 0);
}

void _domino_futex_wake_one(unsigned int *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}
#elif !defined(__APPLE__)
// Elsewhere (no futex; Apple platforms use os_unfair_lock instead): a wait that
// yields and returns at once, which the lock takes as a spurious wake-up and tries
// again; so a waiter spins, yielding, and a wake has nothing to do.
#include <sched.h>

void _domino_futex_wait(unsigned int *word, unsigned int expected) {
    (void)word;
    (void)expected;
    sched_yield();
}

void _domino_futex_wake_one(unsigned int *word) {
    (void)word;
}
#endif
