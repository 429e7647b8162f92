// Intentionally empty: the target is its header (see include/CMallocStats.h).
