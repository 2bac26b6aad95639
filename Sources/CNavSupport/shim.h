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

#endif
