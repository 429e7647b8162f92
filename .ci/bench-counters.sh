#!/usr/bin/env bash
# Deterministic costs of Domino's hot paths, counted by callgrind and checked against
# limits: instructions, allocations (malloc and its kin), and calls of the Swift
# runtime's retain and release, per operation.
#
# Each scenario runs twice under callgrind with `--samples 1 --ops A` and `--ops B`;
# a run does 8 + 2 x ops operations (a check, a warm-up round, one sample), so the
# difference of the two runs' counts divided by 2 x (B - A) is the cost of one
# operation, with start-up, building the scenario and printing cancelled out.
# Callgrind counts executed instructions and calls, not time, so the figures repeat
# exactly from run to run on one build and toolchain.
#
# Usage: .ci/bench-counters.sh [path to a release domino-bench]
#        (default Benchmarks/.build/release/domino-bench; build it first)
# Exit status 1 when a count exceeds its limit; the table is printed either way.
set -euo pipefail
cd "$(dirname "$0")/.."

bench=${1:-Benchmarks/.build/release/domino-bench}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "error: valgrind is not installed (apt-get install valgrind)" >&2
    exit 1
fi
if [ ! -x "$bench" ]; then
    echo "error: $bench not found; run swift build -c release --package-path Benchmarks -Xcc -gdwarf-4" >&2
    exit 1
fi

# Limits, per operation. Instructions: today's counts plus 3%, so a change that makes a
# hot path dearer fails, while a change in code that the path does not run (which
# moves the optimizer's layout by an instruction or two) does not. Allocations,
# retains and releases: today's counts. Posts, requests and fires allocate nothing
# and retain nothing but the signal fire's observer (swift_tryRetain, then
# swift_retain); a post still calls swift_release twice. Walks down allocate
# nothing once their thread has seen a tree of their size. Lower a limit when a
# change lowers its count.
# Session 6 (issue 19): handler lists became views of shared storage that mark
# removed handlers in place, so that subscribing and cancelling N handlers at one
# node is linear (it was quadratic); a walk tests one bit per handler and finds a
# slot through `slotPosition` (+30 instructions per post, 870 to 900). A walk's
# unpin then became one atomic decrement instead of a second lock round trip (900
# to 857). Walks down got cheaper (broadcast retains 1,227 to 116, raise 26 to 5).
# Session 8 (issue 28, walks down): a raise and a broadcast reuse their thread's
# scratch space (lists emptied, capacity kept) and allocate nothing in steady state:
# a raise at depth 10 went from 22,745 instructions, 26 allocations, 5 retains, 59
# releases to 11,553, 0, 8, 41; a broadcast of 1,111 nodes from 772,303, 49, 116, 182
# to 753,490, 0, 119, 142 (three retains more: the scratch, its extras, a stage list).
# Session 8 (issue 26): reports and protocol posts got rows. Before the walks learned
# to move to where a handler lives, a report at depth 10 cost 1,866 instructions, 1
# allocation (the error's box), 4 retains, 8 releases; a protocol post 4,388, 0, 6, 9.
# After: 1,859 and 4,328, with one more release call per report (of a nil reference).
# Session 9 (issue 28, step 4): the atomics came from swift-atomics instead of the
# standard library's compare-and-swap loops (a pin's and an unpin's add became one
# `lock xadd`, the limbo flag's store a store): a post 836 to 819 instructions, at
# depth 10 1,008 to 991, a request 2,205 to 2,188, a report 1,880 to 1,863, a protocol
# post 4,337 to 4,292, a fire 376 to 374, a raise 11,544 to 11,528.
# Then a table's reformers and interceptors moved out of line (32 bytes fewer per
# table): a post 819 to 822, a request 2,188 to 2,191, a raise 11,528 to 11,544, a
# broadcast 753,463 to 757,899 (4 per node: one more load and test per stage).
# Session 10 (issue 28, sizes): a node's parent and child lists became one word each
# (an idle node 112 to 96 bytes of heap), and walks down stopped retaining and
# releasing the lists they read: a raise 11,544 to 11,385 instructions and 41 to 31
# releases, a broadcast 757,907 to 756,787 instructions, 119 to 8 retains, 142 to 31
# releases; a post 822 to 819, at depth 10 992 to 998, a request 2,191 to 2,198, a
# report 1,863 to 1,875, a protocol post 4,270 to 4,293 (code layout: the route's
# fast loop reads one word per node, as before).
# Session 11 (issue 28, step 5 (a) and (b)): a node's slots became a published
# SlotStore (a filter and a first-entry check inline, the rest of the look-up out of
# line) and its lists published words: a post 819 to 813, at depth 10 998 to 993, a
# request 2,198 to 2,168, a report 1,875 to 1,768 (9 to 8 releases), a protocol post
# 4,293 to 4,285, a raise 11,385 to 10,557, a broadcast 756,787 to 619,947 (681 to
# 558 per node: a node without the key costs one filter test, not a scan).
# Session 12 (issue 28, step 5 (d)): walks up collect without their stripe (a pin
# without a lock, the walk gate, the link sequence at every level, a delivery pin
# and each stage's table loaded again) instead of an uncontended trylock and unlock:
# a post 813 to 863, at depth 10 993 to 1,068, a request 2,168 to 2,246, a report
# 1,768 to 1,925 (8 to 9 releases), a protocol post 4,285 to 4,387. Raised, not
# lowered: what it buys is that a post never waits for a writer; step 6 (no plan,
# no second look-up) is where the instructions go down. Then routes that branch (a
# node with two parents) were collected without the stripe too: the chain's loop
# got 4 instructions a level dearer (depth 10 1,068 to 1,111; the optimizer's
# layout, not measured further), a post 863 to 866. Then capture handlers and group
# interceptors without the stripe too (a slow variant, called only after the fast
# path declines): a post 871, at depth 10 1,096 (limit lowered), a request 2,256, a
# report 1,968, a protocol post 4,285 to 4,403 (limit raised to its count + 3%).
# Then a review's fixes: a walk tells a responder node by the node's mode word (a
# trivial word, safe to read in a node's deinit) instead of its responderLink, so it
# loads that word at every node: a post 865, at depth 10 1,120 (limit raised), a
# request 2,275, a report 1,991 (limit raised), a protocol post 4,424.
# Session 13 (issue 28, step 6 begun: the walks' fixed costs), each change alone:
# a slot's table word at a constant offset instead of a static let of
# MemoryLayout.offset(of:), whose accesses each called swift_once (post 858 to 820,
# depth 10 1,133 to 1,065, protocol post 4,482 to 4,329); a plan's later stages in a
# ScratchList instead of an array (one release fewer per post, request and report:
# 3 to 2, 2 to 1, 9 to 8; post 820 to 790); a plan's extras retained by hand (the
# implicit destruction of an Extras? field cost every post 59 instructions through a
# merged outlined copy that looked up Optional's metadata: post 790 to 727, depth 10
# 1,025 to 962, request 2,216 to 2,155, report 1,896 to 1,835, protocol post 4,395 to
# 4,253); walks down hand each node's nearest ancestor stage down the walk's tree
# instead of popping a stack of open stages, keep their lists in ScratchLists, read
# a node's mode from its published word, lend the value as sent to handlers instead
# of copying it per stage, no longer hash a lone start into the visited set nor fill
# an unused depth list, and keep reformed values in a dictionary of a concrete type
# ([Int: Payload] cost two tuple-metadata look-ups a walk): a raise 10,630 to 6,425
# (24 to 12 releases, 5 to 4 retains), a broadcast 625,521 to 407,712 (563 to 367 per
# node). Then a key's filter bit mixes in its phase (a raise's look-up of the
# raise-phase key at each node passed the filter wherever the type had bubble
# handlers): a raise 6,425 to 5,741, a post 727 to 732 (the mixing, twice a post).
# Then the common post (one stage, nothing else) apart from the general walk: a
# post 732 to 661, at depth 10 967 to 906. Then requests and protocol events without
# generic metadata look-ups in the unspecialized walk: request(_:) and the respond
# forms are inlinable, so the answer's optional is declared and tested where its
# type is known (a request 2,160 to 1,579, then 985); protocol events keyed by the
# protocol's type instead of ProtocolEvent<Target>, a value target boxed, the
# answer written by the caller's closure, and a stage's interceptors checked before
# the generic interception call (a protocol post 4,299 to 2,902, a request to 963).
# Session 14 (issue 28, step 7 begun: sizes), each change alone: a list of one
# handler holds the handler itself instead of a storage of one entry (post 658 to
# 638, depth 10 913 to 893, raise 5,742 to 5,543, broadcast 367 to 349 per node,
# protocol post 2,898 to 2,824, its retains 6 to 4 and releases 8 to 7); a handler's
# one-byte facts and mode packed into one word with its place (post 638 to 646,
# raise 5,544 to 5,610: the mode's bits tested in that word); a table's one inline
# list (post 646 to 649, raise 5,610 to 5,654, broadcast 355 to 359 per node,
# protocol post 2,787 to 2,853 with one retain and one release more, 5 and 8).
# Measured and dropped: the thread state's key and swift_tryRetain's address read
# from statically initialized globals (8 to 10 instructions fewer on every row, a
# fire 374 to 356), because the thread sanitizer reports the `&global` that gives
# an atomic its address as a racing Swift access in debug builds.
# Session 15 (issue 28, step 6): the thread state in a C `__thread` word and
# swift_tryRetain called directly, through Domino's C shim (_DominoShims): no
# pthread_getspecific and no swift_once for either. Post 649 to 620, depth 10 904
# to 875, request 954 to 925, report 1,824 to 1,794, protocol post 2,853 to 2,822,
# fire 374 to 326, raise 5,654 to 5,595, broadcast 398,827 to 398,768. Then the
# graph lock's words in the shim's static storage, its hot functions static (no
# swift_once for the graphLock global, twice a post): post 620 to 597, depth 10 875
# to 862, request 925 to 915, report 1,794 to 1,766, protocol post 2,822 to 2,802.
# Then one encoding of delivery modes (DeliveryMode.Code) for handlers, nodes and
# the gate, a handler's in-place test in one method: report 1,766 to 1,757, raise
# 5,583 to 5,541, broadcast 398,756 to 394,311 (359 to 355 per node). Then a walk
# up's count of nodes without an overflow check (`&+=`), which also let the chain
# loop keep more in registers: depth 10 862 to 854, request 915 to 876. Tried and
# dropped: the chain's levels without a table climbed by a small function of their
# own (21 instructions a level instead of 25, but 40 to set it up and the stopping
# node read twice: depth 10 854 to 890). Then a signal's lock a word lock
# (WordLock: a futex lock inline on Linux, os_unfair_lock on Apple platforms) instead
# of a pthread mutex: fire 326 to 275, protocol post 2,795 to 2,775. Then the graph
# lock's stripes word locks too (free at zero: the static words need no set-up):
# raise 5,540 to 5,456 (one stripe round trip a walk down); rows that take no lock
# moved by the optimizer's layout (report 1,760 to 1,784, protocol post 2,775 to
# 2,848, broadcast +1 per node). A subscribe-and-cancel pair, counted apart:
# 11,994 to 11,100 instructions (two writes, eight stripes each). Then a signal's
# lock and unlock inlinable into the inlinable fire (no call either way): fire 275
# to 269, protocol post 2,848 to 2,808.
# Session 16 (issue 28, walks down): a walk's orphans nil until the first instead of
# an empty array released at its end (post 597 to 587, depth 10 852 to 842, request
# 875 to 864, report 1,784 to 1,766); a walk down whose stages have no reformers,
# interceptors or groups delivers in a loop of its own without marks, notify
# inlined in it (raise 5,458 to 4,384, 496 to 399 per node, retains 4 to 3,
# releases 11 to 9; broadcast 395,327 to 294,382, 356 to 265 per node); a
# ScratchList's count without an overflow check (report 1,766 to 1,735); a raise's
# roots in a ScratchList, and the default mode taken from the walk gate (raise
# 4,384 to 4,197, 382 per node, releases 9 to 8; broadcast 293,094, 264 per node,
# releases 9 to 8). A plan's stage count without an overflow check too, which a
# walk up pays at each stage it collects: post 587 to 580, depth 10 842 to 805 (25
# a level), request 864 to 869 and protocol post 2,810 to 2,847 (the optimizer's
# layout, not traced further), report 1,731. Then walks down through plain trees
# collect without their stripe, as walks up do (a pin without a lock, the link
# sequence at each node, the delivery pin and each stage's table loaded again):
# raise 4,197 to 4,241 and broadcast 293,094 to 306,463 (264 to 276 per node),
# retains 3 to 2 and releases 8 to 6 for both. Raised, not lowered: what it buys is
# that a broadcast or a raise never waits for a writer. Protocol post 2,847 to
# 2,767 (layout).
# Session 17 (issue 28): rows for programs with responder nodes (every UIKit app
# with `dominoNode`s), measured in a group of their own (a responder node switches
# the registry on for the process): a post up 10 responder nodes, each link
# resolved again by every post, cost 56,503 instructions, 16 allocations, 90
# retains, 137 releases; a broadcast over 111 responder nodes 410,030 (3,694 a
# node), 130 allocations. A chain read without allocating, chain walks through
# responder nodes without a visited set, then each link checked against the
# responders its last resolution read (`ChainChecks`): 10,797, 1, 54, 80 and
# 144,762 (1,304 a node), 1, 558, 785; then the broadcast's checks compare the last
# responder read with the successor's host by identity (every host is held by its
# own check) instead of loading it again: 10,505, 1, 54, 68 and 130,171 (1,173 a
# node), 1, 558, 674; then each chain's first responder read from the host in
# place, not from a copy of it: 9,964, 1, 44, 58 and 124,556 (1,122 a node), 1,
# 448, 564. Most of what is left is reference counting of the
# responders, whose counts live in side tables (they are weakly referenced); the
# retain and release counts vary by a few hundredths between runs, hence one more.
# The walk under the stripe that posts fall back to became a function of its own
# (`collectAgain`): inlined, its code changed the register use of every post. A
# post 583 to 543, at depth 10 838 to 798, a request 869 to 853, a protocol post
# 2,829 to 2,749 (the stripe walk's new chain loop had first cost 3 to 62).
# A row for a broadcast through a tree with one interceptor (at a node of the second
# level, letting every event through): 516,097 instructions (465 a node), 0
# allocations, 6 retains, 14 releases. Such a tree is collected twice: without the
# stripe until the check under the delivery pin finds a table with interceptors,
# then under it, with the marks (about 115 and 165 a node). A collection without
# the stripe that records the marks itself was tried (a node bit for tables with
# interceptors, a sticky flag for reformers and interceptors ever used): 524,886,
# no cheaper, and the bit cost plain broadcasts 3 a node; not landed.
# Session 18 (issue 28): a walk without a lock takes its delivery pin in its read
# pin's parity and, when the epoch has not moved, keeps the tables it collected
# without loading each one again (the Dekker check and the second look-up gone;
# walks down no longer keep each stage's node for it): a post 543 to 501, at depth
# 10 798 to 745, a request 853 to 808, a raise 4,241 to 3,656, a broadcast 306,463
# to 249,142 (276 to 224 a node), then 235,781 without the nodes kept; then a
# stage's mode as a code instead of an enum with a payload (post 491, raise 3,499,
# broadcast 233,559), a walk down's extras lent by its scratch instead of retained
# (raise 3,498 to 3,449, retains 2 to 1, releases 6 to 5), a responder node without
# a mode of its own giving the walk's default without a look-up (responder
# broadcast 126,245 to 119,683, 1,078 a node; its post 10,013 to 9,993), and a
# walk down whose epoch moved collecting again instead of taking
# its stripe. Then the common post ends its plan inline (`consuming end()`, no
# deinit call) and a plain walk down delivers its later stages from their memory
# (broadcast 233,508 to 224,540, 202 a node; raise 3,336 to 3,247), and a walk
# down collected without the stripe gives its scratch back without measuring and
# emptying the extras it never touched (raise 3,247 to 3,194). Posts up
# levels move by up to 40 with the optimizer's layout of the chain loop, which
# each of these changes moved: depth 10 between 686 and 737 in this session's
# builds, a request between 754 and 815. At the end: post 490, depth 10 735,
# request 755, report 1,662, protocol post 2,713, fire 269, raise 3,194, broadcast
# 224,533, intercepted broadcast 502,938, responder post 9,966, responder
# broadcast 118,712 (1,069 a node). Limits at the counts + 3%.
# Session 19 (issue 28): the common post and request walk without a `Plan`
# (`collectLean`: one stage in locals, returned in registers; anything else hands
# the walk to a plan where it stands): first inlined into the post, a post 490 to
# 396, at depth 10 735 to 581; then a function of its own shared with requests: a
# post 380, depth 10 575, a request 755 to 554; a post through responder nodes,
# which hands over at its first node, 9,966 to 10,093. Protocol posts moved 2,713
# to 2,739 with the layout (their code did not change). Tried and dropped: the walk
# returning an enum (post 416, depth 10 611), or inlined with closures for its ends
# (post 414, request 945: the request's closure was not inlined). Limits of the two
# post rows and the request row at the counts + 3%.
# Session 20 (issue 28): responder checks hold no host they do not read (a broadcast
# off the main thread held every responder node's host, views included): responder
# post 10,092 to 10,180, responder broadcast 118,525 to 120,336 (a weak reference
# compared, an entry laid out anew); walks down in programs without responder nodes
# skip the checks: intercepted broadcast 505,167 to 504,833, retains 5 to 4,
# releases 13 to 10 (first measured at 13.98 releases: the second array of the
# checks, empty, released at each walk). A fire counts itself in and out on its
# observer list with an atomic add each instead of retaining and releasing it:
# 269 to 234, a retain and a release fewer; its look-up of the list inlined into
# the fire, 227. Limits: fire 234, 1, 1; intercepted broadcast 4 retains, 10
# releases.
# Session 21 (issue 28): walks down pass their stages, not the plan, to the delivery
# loop (a borrowed plan was copied: raise at depth 10 3,194 to 3,113, a broadcast
# 202 to 196 a node), use the scratch's visited set in place (an empty set released
# at every walk: 2,993, 192 a node), hand the scratch back to the thread by
# consuming their reference (2,946, no retain), no longer capture the runaway
# message's verb (2,920, 2 releases) and test their stages for reformers and
# interceptors from the stages' memory (2,890, 189 a node). A thread whose last walk
# down of a kind (from the same node, for the same type) found a stage that is not
# plain collects the next one under its stripe at once, instead of twice:
# intercepted broadcast 500,256 to 399,625; the hint's test costs a raise 13 (2,903). Protocol targets: the target copied as a
# `Target` when subscribed and read from that copy, instead of `object as? Target`
# (a dynamic cast, about 860 instructions), 2,699 to 1,616 (a retain and a release
# more: the copy read); held as signals hold observers (no side table), 1,382.
# Limits at the counts + 3%.
# Session 22 (issue 28): the delivery of a tree that is not plain moved out of
# deliverDown (its frame 1,112 to 712 bytes): raise 2,903 to 2,881, intercepted
# broadcast 399,625 to 390,763. New row: a post to an owner-bound subscriber
# (`subscribe(_:owner:on:_:)`), 535 instructions with the owner held `weak` (a side
# table on the owner: swift_weakLoadStrong, then the slow release), 443 held as
# signals hold observers (`OwnerReference`; on Linux `unowned` plus tryRetain): the
# retain is the owner's, for the call. Limits at the counts + 3%. A handler's
# queue moved into a box shared with its node (handlers 56 to 48 bytes): walks do not
# read that word, yet the optimizer's register choices moved a post 380 to 383, a
# raise 2,881 to 2,903, a broadcast 209,897 to 212,121, a report 1,662 to 1,673
# (within the limits, left as they were).
# Session 23 (issue 28): new row, a fire through one filter (`.filter { ... }` on
# the subscription): 1,658 instructions, 4 retains, 5 releases while the operators
# ran as unspecialized generic code behind two locks (the stage's generic metadata
# looked up at every fire, the subscription loaded through a weak reference); 360,
# 1, 1 once the operators were immutable, published beside the subscription's flags
# and run in the caller's specialized code. New row, a fire to a subscription made
# in main-actor code (`signal.subscribe(self) { ... }` from a view controller), on
# the main thread: 1,611 instructions, 2 allocations, 5 retains, 8 releases while
# each fire copied the mode under the lock and made a closure to enter the main
# actor; 348, 0, 1, 1 once a main-thread mode has a flag of its own (on the main
# thread the callback runs in place) and the callback checks the thread without
# making a closure; 287 once such a callback is flagged as the main actor's (the
# subscription, not the callback, sees that it runs only on the main thread, so the
# callback checks nothing and is called without its box). That flag's test moved
# the filtered fire to 370. New rows for
# posts to handlers written in main-actor code, posted on the main thread (what a
# view controller does): a closure, typed.post.local.1.mainactor, 419; an
# owner-bound one (`subscribe(_:owner:_:)` with no mode, the README's form),
# typed.post.local.1.owned.mainactor, 613 instructions, 2 retains, 4 releases while
# the handler copied its owner's reference to test it (on Linux an unowned retain
# and release) and retained the loaded owner again to pass it on; 465, 1, 3 read in
# place and passed as loaded. A protocol target borrowed in place from its template
# and its object released by hand after the call (the unspecialized walk called
# `withExtendedLifetime` and copied the target through its value witnesses): a
# protocol post up 10 levels 1,382 to 1,300. New row, a request answered by a
# responder written in main-actor code, on the main thread: 612 instructions and 2
# releases (the nil owner of a responder without one loaded and released), 595 and
# 1 once a responder without an owner skips it. Limits at the counts + 3%.
# Session 24: new rows for posts that reach more than one stage, which hand the walk
# to a plan: typed.post.twostages (a subscriber where it is posted and one a level
# up) 1,366 instructions and 2 allocations (calls to the allocator) per post, and
# typed.post.intercepted (an interceptor that lets it on, then the subscriber above)
# 1,454 and 2, while a plan's later stages lived in memory allocated and freed by
# every such post; 1,201 and 1,289 with none once each thread keeps that memory
# between walks (ThreadState.spareStages). A report up 10 levels 1,671 to 1,641 on
# the way. Then a post that finds a second stage, with neither reformers nor
# interceptors at either, keeps it too and delivers both without a plan (the walk
# goes on out of line from the second, `collectLean(_:secondStage:…)`, the stage in
# the thread's state): typed.post.twostages 1,201 to 732. It costs the common post
# 8 instructions (383 to 391: the test of a second stage where the post delivers,
# and the optimizer's register choices around it), and a post whose first stage
# intercepts 73 (1,289 to 1,362: the out-of-line call that finds the stage is not
# plain and hands over). Limits: typed.post.local.1 403, typed.post.twostages 754,
# typed.post.intercepted 1,403 (the counts + 3%). A request reads the second stage
# before its first responders run (one that posts may keep a second of its own):
# request.depth10 558 to 564, the main-actor one 595 to 601, within their limits.
# New row typed.post.stream: a post into a `for await` loop (`stream(of:)`) beside a
# subscriber, 6,110 instructions while the closure that yields was made in the
# library (unspecialized: the continuation's metadata looked up at every event);
# 5,114 made in the caller's module (`stream(of:)` inlinable). Most of the rest is
# `AsyncStream`'s own yield (4,606 called directly). Limit 5,267 (+3%).
# Session 25: a post's checks of the responder chains it passes compare the
# registry's membership again after reading them (a node made during the reads, by
# the read itself or on another thread, was skipped: 16 posts in 20,000 racing a
# broadcast); the membership moved to an atomic word so that the compare takes no
# lock. responder.post.depth10 10,209 to 10,276 (with the lock: 10,347); limit 10,330.
# Then posts through stages with reformers or interceptors walk and deliver without
# a plan (`deliver(_:key:leanFirst:…)`), and walks lend a table's interceptors and
# reformers (and call them through a method) without retaining the lists or the
# closures: typed.post.intercepted 1,362 to 779 (then 775) instructions, retains 1 to 0,
# releases 3 to 2 (limit 802/0/0/2); broadcast.tree1111.intercepted retains 3 to 2,
# releases 7 to 6. The common post pays 2 (391 to 393: the flag where the walk
# returns), a request 3 (564 to 567: the test that sends such stages to a plan).
# typed.post.local.1.owned 454 to 456 with them, at its limit (a run measured
# 456.004): limit 470 (+3%).
# New row named.post.local.1 (Domino's named event, posted where its subscriber is,
# no parameters): 580 instructions, 2 retains and 4 releases, against a typed
# post's 393, 0 and 2: the name's string retained for the event and for the key
# (and the empty parameters' storage), and the reabstraction thunk of a handler
# written for a `NamedEvent` stored in a generic receiver (about 60; a receiver
# class of its own saved only 11, the override's own thunk taking the rest: not
# kept). Limit 597 (+3%).
# Session 27: three things the compiler paid on every walk or fire, found by reading
# the hot instructions (callgrind --dump-instr): a walk's orphans released as nil
# after `purge` (9 instructions; `purge` now leaves the list nil), two overflow tests
# in every pin's and unpin's address (wrapping arithmetic; the same in the stripes'
# lock and unlock made the optimizer stop inlining a closure of the error walk, a
# report 1,641 to 1,704, so not there), and a fire's
# `enterFiring` saving five registers for its cold paths (now out of line): a post
# 393 to 362, at depth 10 578 to 547, a request 567 to 538, two stages 733 to 695,
# an intercepted post 775 to 735, a fire 227 to 212 (filtered 370 to 355, main actor
# 287 to 272), the main-actor and owner-bound rows 29 to 35 fewer, a raise 2,900 to
# 2,878, a report 1,641 to 1,637. Limits lowered to the counts + 3%. Then a walk
# down gives its scratch back into the thread's empty field without releasing the
# nil it held: a raise 2,878 to 2,865 and a release fewer (2 to 1), a broadcast 13
# fewer (limit 2,951). Then the delivery count and the nesting count's decrement
# with wrapping arithmetic (each bounded: handlers called, `maximumNestingDepth`):
# a post 362 to 357, at depth 10 547 to 542, a fire 212 to 209, a raise 2,865 to
# 2,829, a broadcast 189.2 to 186.2 a node (the count is per delivery); limits of
# those five rows lowered to the counts + 3%.
# Session 28: handlers written in main-actor code stored as written (a main-thread
# `ClosureReceiver`, `ControllingReceiver` or `OwnedReceiver` instead of the isolated
# receiver's closure around the user's): a main-actor post 393 to 362, owner-bound
# 439 to 430; a main-actor responder answers in one frame: a main-actor request 575
# to 557; a fire calls a main-thread observer in place from its loop on the main
# thread: a main-actor fire 269 to 235 (a filtered fire 352 to 356, one more test on
# its slow path; its limit kept); a protocol walk lends its targets' receivers (a
# cursor) instead of iterating the list as a sequence: a protocol post 1,276 to
# 1,120, retains 7 to 3, releases 9 to 6. Limits lowered to the counts + 3%.
# Session 29: a key's filter bit by Fibonacci hashing (three instructions, no test for
# keys without a type): a post 357 to 347, at depth 10 542 to 532, a request 538 to
# 528, a raise 2,829 to 2,809, an intercepted broadcast 381,900 to 371,897; then no
# fence after a pin's locked add on x86-64: one fewer on every walk (a post 346).
# Limits of the rows that moved lowered to the counts + 3%.
# Session 30: pin counts in a record of each thread's own (`GraphLock`, "Pin records"):
# the delivery pin in the read pin's parity and the read pin's return became a plain
# load and store each (two locked adds and the return's check of the limbo word
# gone): a post 346 to 339, owner-bound 409 to 402, main-actor 351 to 344 and 419 to
# 412, two stages 666 to 659, an intercepted post 707 to 700, a report 1,637 to
# 1,622, a protocol post 1,109 to 1,093, a raise 2,808 to 2,798; at depth 10 531 to
# 534 and a request 527 to 530 (the chain loop's registers moved: one more spill per
# level with a slot store; their limits kept). Limits of the rows that fell lowered
# to the counts + 3%.
# Session 31 (issue 28, a signal fired from several threads at once): what every fire
# writes (the lock, the fire count, the last values) on one cache line of its own, and
# a fire reading its observer list under a hazard slot in its thread's pin record
# instead of counting itself in and out on the list, which every firing thread wrote:
# from two threads at once (`signal.fire.1.contended`, not counted here: it runs two
# threads) 72.0 to 52.1 ns a fire with the line, to 41.5 with the hazard slots
# (medians of 16 alternating runs in one sitting; about 38 once a writer marked the
# slots instead of setting a pending word), one thread's fire 17.6 to 18.2 ns
# (medians of ten alternating runs: within the noise). Instructions: a fire 209 to
# 226, a filtered fire 356 to 373, a main-actor fire 235 to 252 (the slot's address
# made and tested, the hazard stored, an exchange and its test where one locked add
# counted out); limits raised to the counts + 3%.
# Session 32 (issue 28, walks down): a walk down through a plain tree without responder
# nodes collects without the stripe straight into its thread's scratch lists and
# delivers from them, without plans (`DominoNode.deliverDownWithoutLock`); a node's
# only child is visited without the stack, a stage's mode bits come from a table
# made once a walk: a raise 2,798 to 2,457 (releases 2 to 1), a broadcast 206,836 to
# 196,294 (186 to 177 a node). Then a walk calls a closure subscriber's body itself
# (`Subscription.isClosureReceiver`) instead of its `receive` through the class's
# table: a post 339 to 323, named 529 to 514, main-actor 344 to 328, at depth 10 534
# to 518, two stages 659 to 622, intercepted 700 to 695, a raise 2,457 to 2,223, a
# broadcast 196,294 to 168,761 (177 to 152 a node), intercepted 371,950 to 349,694,
# a responder broadcast 117,939 to 115,831; owner-bound posts 402 to 408 and 412 to
# 418 (the test before their `receive`; limits kept). Then the walk down inlined into
# `raise` and `broadcast` (the result no longer copied between frames) and its
# collection saying when it found nothing to deliver: a raise 2,223 to 2,193 (199 a
# node, the issue's 200 met). And a post's walk inlined into `post` (its result was
# copied between frames): a post 323 to 300, named 514 to 479, owner-bound 408 to 382
# and 418 to 392, main-actor 328 to 305, at depth 10 518 to 495, two stages 622 to 597,
# intercepted 695 to 672, into a stream 5,051 to 5,012. Then the walk down's trace name
# out of line (its generic cast made the unspecialized delivery loop allocate room for
# copies of the event at every call): a raise 2,193 to 2,160 (196 a node), a broadcast
# 168,733 to 169,796 (152 to 153 a node; its limit kept). And a post to two levels
# runs its two stages through one `notify` in a loop (the second call's was out of
# line): 597 to 568. Then (the session's review) every walk that traces names the
# event through `traceName(of:key:)` but the common post, and walks down under the
# stripe deliver through the same loop as those without it: a raise 2,160 to 2,134 (194
# a node), a broadcast 169,796 to 166,467 (150 a node), an intercepted post 672 to
# 655, a responder broadcast 115,781 to 115,153. Limits of the rows that fell lowered
# to the counts + 3%.
# Session 33 (issue 28): a walk's delivery tests a handler's removed mark, mode and
# closure bit in one load and one compare instead of three loads and five tests (a
# lone handler lent unchecked, the walk testing its mark): a post 300 to 292, at depth
# 10 495 to 487, a raise 2,134 to 2,046, a broadcast 166,467 to 157,581; the test
# first made for posting-thread closures cost owner-bound and main-actor posts 7 to 9,
# then made with words of the thread's state (`ThreadState.inPlaceMask`) it finds
# main-actor closures on the main thread and, without the closure bit, owner-bound
# handlers too: a main-actor post 305 to 298, owner-bound 382 to 390 and 392 to 395
# (limits kept). A walk down reads a list of children in place through a cursor
# instead of pushing and popping every child: a broadcast 157,581 to 150,626. A
# slot's table word tagged when its table has reformers or interceptors
# (`Slot.rarerTag`), so that a walk down declines such a tree from the word instead of
# reading every table under its delivery pin: a broadcast 150,626 to 140,494, a raise
# 2,046 to 1,986; from the optimizer's register choices in the chain loop, a post at
# depth 10 487 to 453 and a request 530 to 496. At the end: a post 298, named 472,
# at depth 10 453, two stages 558, a request 496 (main-actor 515), a report 1,592, a
# protocol post 1,064, a raise 2,010 (183 a node), a broadcast 142,726 (128.5 a node),
# intercepted 340,801, a responder broadcast 114,605. Limits of the rows that fell
# lowered to the counts + 3%.
# Session 34 (issue 28, walks through responder nodes): a responder held without a
# side table where every object is a native Swift one (an unowned reference and
# tryRetain, as a signal's observers; a weak reference gave every responder a side
# table, whose retains and releases take the runtime's slow path): a post up 10
# responder nodes 10,190 to 6,800 instructions, a broadcast over 111 responder nodes
# 114,605 to 79,000. Then the checks' lists kept with the thread between walks (no
# allocation), each link's read path copied under the lock instead of retained, the
# entries read in place and the link borrowed from its node: a post 6,800 to 6,146,
# 1 to 0 allocations, 58 to 48 releases; a broadcast 79,000 to 73,354, 1 to 0
# allocations, 564 to 451 releases; a post's route walked once for its stages and its
# checks, 6,146 to 5,987. An actor-isolated handler's actor held the same way cost a
# report 1,592 to 1,668 (its orphan test inlined split the report's handler loop),
# 1,595 once that test was out of line. Limits lowered to the counts + 3% (retains
# and releases: the counts, rounded up).
# Session 35 (issue 28, walks down through responder nodes): the checks of every
# responder node's link taken once and shared by the walks down until a link changes
# (ChainCensus) instead of taken under the lock at every walk: a broadcast over 111
# responder nodes 73,354 to 47,953 instructions, 447 to 336 retains, 452 to 337
# releases; a post up 10 responder nodes 5,987 to 5,831 (the checks' every-node
# branches gone), 45 to 44 retains, 49 to 48 releases. New row
# responder.broadcast.among1000: a broadcast from a leaf responder node with one
# subscriber beside 1,000 other responder nodes, which every walk down reads the
# chains of ("per" is those 1,000: the cost of each); built only when named, since
# its nodes would be paid by every responder row after it in a full run. 426,796
# before the census (4 retains and 4 releases a node), 200,730 after (3 and 3).
# New row responder.broadcast.moved.among1000: the same after the leaf moved between
# two panels before each broadcast; the walk resolved every link (3,191,009
# instructions), now only the moved one (471,512, 26 allocations: the new census's
# lists and the resolution's).
# Session 36 (issue 28, walks up through responder nodes): a post's checks of the
# responder nodes on its route taken once for a route and kept by its thread (a census
# of the route's links, `ChainCensus.init(route:)`, four routes a thread, most recent
# first) instead of taken under the lock at every post (`ChainChecks`, gone), and the
# stripe taken once (collectAgain hands it on): a post up 10 responder nodes 5,823 to
# 3,517 instructions, 44 to 34 retains, 48 to 36 releases; then 3,618, the route's hosts
# held under the stripe for the check instead of the census keeping their links
# between walks (which kept dead views' memory, found by the leak checker).
# New rows responder.post.inturn2.depth10 and responder.post.inturn5.depth10: posts
# from two and five sibling leaves in turn (two: every post finds its route's census,
# 3,698; five: none does, and each takes its route's census again in the memory of
# the least recently used, no allocation: 4,821, 36 retains, 38 releases). A census of every node holds its links
# (retained) rather than an unowned reference to each host, and keeps its lists in memory of its
# own (ScratchList): a broadcast after a move beside 1,000 responder nodes 471,938 to
# 370,023 instructions, 26 to 12 allocations (a census of every node, too, taken again
# in its own memory when no walk holds it), retains and releases 3,071 and 3,118 to
# 4,072 and 4,102 (the links' retains are counted; the unowned ones they replace were
# not).
# Session 37 (issue 28, walks down through responder nodes): collected under the
# stripe without plans, as walks down without the stripe collect (straight into the
# thread's scratch lists, lists of links read in place through cursors), followers
# visited after children (`DominoNode.deliverDownStriped`): a broadcast over 111
# responder nodes 47,850 to 40,386 instructions (its collection about 166 to 103 a
# node). Then each chain read with its host made from the reference `tryRetain` took
# (an existential built from its two words in place, and consumed), where an
# `unowned(unsafe)` existential was copied, a retain and a release more a read: a
# post up 10 responder nodes 3,606 to 3,050 instructions, 34 to 23 retains, 36 to 25
# releases; a broadcast over 111 responder nodes 40,386 to 35,057; beside 1,000
# responder nodes 199,211 to 151,084; after a move 369,747 to 312,507. A post's
# default mode from the walk gate: 3,050 to 3,023. New row responder.raise.tree111 (a
# raise from a leaf of the same tree, up its chain then down every node: the striped
# walk's way up), 35,223, built only when named.
# Session 38: a walk up's route census reads a host the entry before leads to from
# the responder that read ended at (the getter's retained result) instead of holding
# it under the stripe: a post up 10 responder nodes 3,023 to 2,763 instructions, 23
# to 13 retains (tryRetain included), 25 to 16 releases; from two views in turn 3,105
# to 2,845; from five 4,160 to 4,096; after a move 312,520 to 314,527 (the census
# entry 56 to 64 bytes; its limit kept).
# Session 39 (links resolved on two threads at once): a resolution takes a ticket (an
# atomic add) and a walk down compares the links' write count under its stripe with
# what its reads left; after a move 314,527 to 314,582 instructions, 3,064 to 3,065
# retains and 3,093 to 3,094 releases (its retain and release limits +1; every other
# row unchanged).
# Session 40: a thread keeps the censuses of its last eight routes instead of four:
# posts from five views in turn find theirs, 4,096 to 2,938 instructions, 15 to 14
# retains, 18 to 17 releases (its limits lowered); a post up 10 responder nodes 2,763
# to 2,768 and from two views in turn 2,845 to 2,860 (the walk's registers; limits
# kept).
# Then posts up responder chains read their route without a lock while their thread
# keeps its census and no link changed (`collectAlongKnownChainsWithoutALock`): a
# post up 10 responder nodes 2,768 to 2,725 instructions, 16 to 15 releases; from two
# views in turn 2,860 to 2,812 and from five 2,938 to 2,894, a release fewer each; a
# broadcast after a move 314,722 to 313,542 (the links' write count loaded before
# the census). Limits lowered.
# Session 41 (a link another thread cut is resolved again): a resolution holds the
# nodes it resolved and passed until it ends, so that none leaves its address to a
# node made meanwhile: a broadcast after a move 3,065 to 3,066 retains and 3,094 to
# 3,097 releases (the nodes its resolution resolved and passed, held to its end),
# 12 to 11 allocations (the set of nodes seen built without a temporary array),
# 315,203 to 314,989 instructions. Every other row unchanged.
# Then walks without a lock check the link sequence every 16 levels and once after
# the walk rather than at each level (a lap of links of two moments is still found;
# memory needs no check): a post at depth 10 452 to 443 instructions (the issue's
# target, 450, met), a request 495 to 486, on the main actor 514 to 505, a post to
# two stages 558 to 552, an intercepted one 658 to 652, an error report 1,595 to
# 1,583, a protocol post 1,064 to 1,054; a post at depth 1 297 to 298 (its limit
# kept). Limits lowered.
# Then a responder node's delivery mode in its published word (a responder node's
# code 4 more than a plain node's; a mode with a queue 8): new row
# responder.post.mode.depth10, a post up 10 responder nodes of which one has a mode
# of its own, 2,716 (3,096 before, when such a post took its stripe); the other
# responder rows about 10 to 20 lower (their limits lowered), every other row
# unchanged.
# New row responder.post.afterchurn.depth10: before each post up 10 responder nodes,
# another view and its node are made and released; each registration and deinit
# moves `ResponderRegistry.membership`, so the post resolves every link of its route
# again, each install taking the exclusive lock to record its path: 37,238 to 37,968
# instructions an operation in four runs (30,400 of them the post's resolution loop;
# the post alone 2,705), 23 allocations, 198 retains, 317 releases. A cliff to bring
# down (see issue 28's notes, session 41), not a target met. It moves more than the
# other rows between runs (37,100 to 38,106 in six runs, CI's included: the node and
# responder made and freed each operation go through malloc), so its limit is the
# highest seen plus 5%, 40,000.
# Session 42: a link's remembered path stays valid while no responder on it gets a
# node (not while no responder node is made or released anywhere), so the post after
# another view's node came and went takes its route's census again and checks it
# instead of resolving every link: responder.post.afterchurn.depth10 about 37,100 to
# 10,884 to 12,343 in six runs (CI's included; about 4,300 of it making and
# releasing the other view and node), 23 to 5 allocations, 198 to 35 retains, 317 to
# 54 releases; its limit the highest seen plus 5%, 13,000. The census of every node
# compares each path's count and, when one was read before the last registration,
# raises the valid ones and takes it again: responder.broadcast.moved.among1000
# 314,648 to 316,800 to 317,240 (its limit, 321,883, kept); every other row unchanged.
# Then walks up through responder nodes without a lock check the link sequence every
# 16 levels and once after the walk, as plain walks do: responder.post.depth10 2,709
# to 2,681, with a mode 2,704 to 2,686, from two views in turn 2,787 to 2,769, from
# five 2,871 to 2,856; limits lowered.
# Then walks down without a lock check the link sequence every 16 nodes and once
# after the walk: broadcast.tree1111 142,722 to 141,887, raise.depth10 2,015 to
# 1,989 (limits lowered); every other row unchanged.
# Then a path read before the last registration is checked in place (its responders
# read without retaining the array; the ring of recent registrations a global with a
# constant initial value, not one made on first use, whose every read was a
# swift_once): responder.post.afterchurn.depth10 10,923 to 10,070 to 10,260 in three
# runs, 35 to 24 retains, 54 to 43 releases; its limit 12,000 (the row moved by up to
# 13% between runs before). Every other row unchanged.
# New row responder.post.aftermove.depth10: a post up 10 responder nodes from a leaf
# moved before each post between the bottom two (the first post after a link
# changed): 43,063 and 43,232 in two runs, 28 allocations, 193.5 retains, 265.5
# releases (the two places alternate). Every link above the leaf is resolved again
# and the resolution loop walks the route with sets and arrays: a row to bring down.
# Its limit today's count plus 3%. (A post that resolved links now leaves its route's
# census for the next post, which reads without a lock: not in this row.)
# Then the resolution's set of nodes seen made with room for them (grown insert by
# insert, it was reallocated several times): responder.post.aftermove.depth10 42,997
# to 38,872, 28 to 25 allocations, 193.5 to 192.5 retains, 265.5 to 261.5 releases;
# limits lowered. Every other row unchanged.
# "per" is the nodes an operation reaches; the table also shows counts per node.
# Instruction counts hold for x86_64 and the toolchain of CI (Swift 6.3); on another
# architecture they are printed but not judged (calls are judged everywhere).
#
# scenario               ops A  ops B  per   instructions  allocations  retains  releases
limits=$(cat <<'TABLE'
typed.post.local.1       2000   12000  1     307           0            0        2
named.post.local.1       2000   12000  1     487           0            2        4
typed.post.local.1.owned 2000   12000  1     394           0            1        3
typed.post.local.1.mainactor  2000  12000  1  307         0            0        2
typed.post.local.1.owned.mainactor  2000  12000  1  404   0            1        3
typed.bubble.depth10     2000   12000  1     458           0            0        2
typed.post.twostages     2000   12000  1     570           0            0        2
typed.post.intercepted   2000   12000  1     673           0            0        2
typed.post.stream        2000   12000  1     5162          0            1        3
request.depth10          2000   12000  1     502           0            0        1
request.depth10.mainactor  2000  12000  1    522           0            0        1
error.report.depth10     2000   12000  1     1632          1            4        7
protocol.post.depth10    2000   12000  1     1087          0            3        6
signal.fire.1            2000   12000  1     233           0            1        1
signal.fire.filtered.1   2000   12000  1     384           0            1        1
signal.fire.1.mainactor  2000   12000  1     260           0            1        1
raise.depth10            200    1200   11    2050          0            0        1
broadcast.tree1111       20     120    1111  146145        0            0        1
broadcast.tree1111.intercepted  10  60  1111  351026        0            2        6
responder.post.depth10   20     120    1     2763          0            13       15
responder.post.mode.depth10  20  120    1     2768          0            13       15
responder.post.inturn2.depth10  20  120  1   2853          0            14       16
responder.post.inturn5.depth10  20  120  1   2943          0            14       16
responder.post.afterchurn.depth10  20  120  1  12000      5            24       43
responder.post.aftermove.depth10   20  120  1  40039      25           193      262
responder.broadcast.tree111  10  60    111   35892         0            223      224
responder.broadcast.among1000  10  60   1000  155617        0            2005     2006
responder.broadcast.moved.among1000  10  30  1000  321883  11           3066     3097
responder.raise.tree111  10  60        111   36030         0            223      224
TABLE
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "name calls" for every function called in a callgrind output file, the calls from
# all its callers summed; callgrind's recursion copies (name'2) count as the function.
calls() {
    awk '
        /^c?fn=/ {
            text = $0; sub(/^c?fn=/, "", text)
            if (match(text, /^\([0-9]+\)/)) {
                id = substr(text, 1, RLENGTH); rest = substr(text, RLENGTH + 2)
                if (rest != "") names[id] = rest; else rest = names[id]
            } else rest = text
            if ($0 ~ /^cfn=/) { callee = rest; sub(/\047[0-9]+$/, "", callee) }
            next
        }
        /^calls=/ { split(substr($0, 7), parts, " "); count[callee] += parts[1] }
        END { for (name in count) print name, count[name] }
    ' "$1"
}

# Sum of the calls of the functions named in $2 (a regular expression) in a calls file.
sum() {
    awk -v pattern="^($2)\$" '$1 ~ pattern { total += $2 } END { print total + 0 }' "$1"
}

allocations='malloc|calloc|realloc|posix_memalign|aligned_alloc|memalign'
# Every retain and release reaches one of these entry points (swift_bridgeObjectRetain
# and the like call swift_retain), so nothing is counted twice.
retains='swift_retain|swift_retain_n|swift_tryRetain|swift_nonatomic_retain|swift_nonatomic_retain_n'
releases='swift_release|swift_release_n|swift_nonatomic_release|swift_nonatomic_release_n'

failed=0
echo "| scenario | instructions / op | allocations / op | retains / op | releases / op |"
echo "|---|---|---|---|---|"
while read -r scenario ops_a ops_b per max_ir max_alloc max_retain max_release; do
    for ops in "$ops_a" "$ops_b"; do
        valgrind --tool=callgrind --callgrind-out-file="$work/$ops.out" \
            "$bench" --filter "$scenario\$" --samples 1 --ops "$ops" >"$work/$ops.log" 2>&1 || {
            echo "error: $scenario under callgrind failed:" >&2
            tail -n 20 "$work/$ops.log" >&2
            exit 1
        }
        grep -q "^| $scenario " "$work/$ops.log" || { echo "error: $scenario did not run" >&2; exit 1; }
        calls "$work/$ops.out" >"$work/$ops.calls"
    done
    divisor=$(( 2 * (ops_b - ops_a) ))
    # One cell: the count per operation (and per node, when an operation reaches
    # several) and the limit, or FAIL. A count may exceed its limit by 50 calls over
    # the difference of the two runs (0.0025 per post, 0.025 per raise, 0.25 per
    # broadcast): the longer run makes a few more calls outside the operations (about
    # 20 retains in 40,000 posts; 0.01 releases per raise in one CI run), while one
    # more call per operation always fails.
    # The cell starts with "FAIL" when the limit is exceeded; a limit "-" is not judged.
    cell() {
        awk -v a="$1" -v b="$2" -v d="$divisor" -v per="$per" -v max="$3" 'BEGIN {
            value = (b - a) / d
            if (value < 0.005 && value > -0.005) value = 0  # no "-0.00"
            text = sprintf("%.2f", value)
            if (per > 1) text = text sprintf(" (%.3f per node)", value / per)
            if (max == "-") print text " (not judged off x86_64)"
            else if (value <= max + 50 / d) print text " ≤ " max
            else print "FAIL " text " > " max
        }'
    }
    ir_a=$(awk '/^totals:/ { print $2 }' "$work/$ops_a.out")
    ir_b=$(awk '/^totals:/ { print $2 }' "$work/$ops_b.out")
    if [ "$(uname -m)" = x86_64 ]; then
        cells=("$(cell "$ir_a" "$ir_b" "$max_ir")")
    else
        cells=("$(cell "$ir_a" "$ir_b" -)")
    fi
    for kind in "$allocations:$max_alloc" "$retains:$max_retain" "$releases:$max_release"; do
        names=${kind%:*}
        cells+=("$(cell "$(sum "$work/$ops_a.calls" "$names")" "$(sum "$work/$ops_b.calls" "$names")" "${kind##*:}")")
    done
    for text in "${cells[@]}"; do
        case $text in FAIL*) failed=1 ;; esac
    done
    printf '| %s | %s | %s | %s | %s |\n' "$scenario" "${cells[@]}"
done <<<"$limits"

if [ "$failed" = 1 ]; then
    echo "error: a hot path costs more than its limit (.ci/bench-counters.sh); find what added the work, or raise the limit in the same commit with the reason" >&2
    exit 1
fi
