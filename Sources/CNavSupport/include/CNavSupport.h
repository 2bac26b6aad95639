#ifndef CNAVSUPPORT_H
#define CNAVSUPPORT_H

/// Asks the processor to start loading `count` bytes at `address` into the cache: Swift has no
/// prefetch of its own. Used for the lines of a mapped input that a partition references, which
/// lie far apart in the file (each one a cache and TLB miss otherwise).
static inline void navreplay_prefetch(const void *address, long count) {
    const char *bytes = (const char *)address;
    for (long offset = 0; offset < count; offset += 64) {
        __builtin_prefetch(bytes + offset, 0, 0);
    }
}

/// Returns 1 to the first caller in the process, 0 to every later one (any thread, signal
/// handlers included): lets one thread report a fatal signal while the others wait.
int navreplay_claim_once(void);

#endif
