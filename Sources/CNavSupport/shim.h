#ifndef CNAVSUPPORT_SHIM_H
#define CNAVSUPPORT_SHIM_H

// Header-only (a system-library target): nothing is compiled here, so the binary's debug
// information stays in the form valgrind reads (clang's own objects would bring DWARF 5).

/// Asks the processor to start loading `count` bytes at `address` into the cache: Swift has no
/// prefetch of its own. Used for the lines of a mapped input that a partition references, which
/// lie far apart in the file (each one a cache and TLB miss otherwise).
static inline void navreplay_prefetch(const void *address, long count) {
    const char *bytes = (const char *)address;
    for (long offset = 0; offset < count; offset += 64) {
        __builtin_prefetch(bytes + offset, 0, 0);
    }
}

/// Returns 1 to the first caller, 0 to every later one (any thread, a signal handler
/// included): one thread reports a fatal signal while the others wait. Swift's `Atomic` needs
/// macOS 15, and the package supports macOS 13. (The flag is this inline function's own: it is
/// called from one Swift file only, `MappedInput.swift`.)
static inline int navreplay_claim_once(void) {
    static int claimed;
    return __atomic_exchange_n(&claimed, 1, __ATOMIC_SEQ_CST) == 0;
}

#endif
