#ifndef CNAVSUPPORT_SHIM_H
#define CNAVSUPPORT_SHIM_H

// Header-only (a system-library target): nothing is compiled here, so the binary's debug
// information stays in the form valgrind reads (clang's own objects would bring DWARF 5).
// An incremental build does not notice an edit here: touch the Swift files that call it.

/// Gives the heap's free pages back to the system where the C library can (glibc's
/// `malloc_trim`): between two phases of one run, so that the second does not find the first's
/// freed buffers still counted in the process's memory.
#if defined(__GLIBC__)
#include <malloc.h>
static inline void navreplay_release_free_memory(void) { malloc_trim(0); }
#else
static inline void navreplay_release_free_memory(void) {}
#endif

// MARK: The spill cleanup registry

/// The spill directories to remove when a signal ends the process (Ctrl-C, SIGTERM, a closed
/// output pipe, a hangup). Libraries register their directories here and never install a
/// handler: the executable installs one (`navreplay`'s `SignalHandlers`), which calls
/// `navreplay_spill_remove_all`. In C because a signal handler may call only async-signal-safe
/// functions: it must not allocate (the interrupted thread may hold malloc's lock) nor touch
/// Swift's runtime (metadata, retains). Removing only reads this fixed registry and calls
/// `unlink`, `rmdir` and `nanosleep`. Other threads go on running meanwhile, so creators of spill
/// files and the handler meet at a gate: a creator enters before its `mkdir` or `open` (and its
/// registration) and leaves after; the handler closes the gate, which no creator enters again,
/// and waits until none is inside before it unlinks: so no file appears after its unlink, and
/// the registry does not change under it. Entering and closing are sequentially consistent, so
/// a creator and the handler cannot both miss each other.

#include <time.h>
#include <unistd.h>

#define NAVREPLAY_SPILL_SLOTS 64
#define NAVREPLAY_SPILL_PATH 4096

struct navreplay_spill_registry {
    long inside;
    int closed;
    /// 1 while a slot holds a registered directory.
    int active[NAVREPLAY_SPILL_SLOTS];
    long partitions[NAVREPLAY_SPILL_SLOTS];
    char directories[NAVREPLAY_SPILL_SLOTS][NAVREPLAY_SPILL_PATH];
};

/// The one registry of the process. A weak function, emitted into every object file that calls
/// it and merged into one by the linker, and never inlined: so its `static` is one. (A `static
/// inline` one would be a copy per object file: the optimized build inlines these functions
/// across Swift files, and a handler reading its copy would remove nothing that another copy
/// had registered.)
__attribute__((weak, noinline)) struct navreplay_spill_registry *navreplay_spill_registry(void) {
    static struct navreplay_spill_registry registry;  // zero pages until a run spills
    return &registry;
}

/// Returns 1 when the caller may create a spill file or directory (then it calls
/// `navreplay_spill_leave`), 0 when the process is exiting and it must create nothing.
static inline int navreplay_spill_enter(void) {
    struct navreplay_spill_registry *registry = navreplay_spill_registry();
    __atomic_add_fetch(&registry->inside, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&registry->closed, __ATOMIC_SEQ_CST)) {
        __atomic_sub_fetch(&registry->inside, 1, __ATOMIC_SEQ_CST);
        return 0;
    }
    return 1;
}

static inline void navreplay_spill_leave(void) {
    __atomic_sub_fetch(&navreplay_spill_registry()->inside, 1, __ATOMIC_SEQ_CST);
}

/// Registers a directory and how many numbered files of each kind it holds; call it inside the
/// gate, one thread at a time. Returns its slot, or -1 when every slot is taken or the path is
/// too long.
static inline int navreplay_spill_register(const char *directory, long partitions) {
    struct navreplay_spill_registry *registry = navreplay_spill_registry();
    long length = 0;
    while (directory[length] != 0) length++;
    if (length >= NAVREPLAY_SPILL_PATH - 32) return -1;
    for (int slot = 0; slot < NAVREPLAY_SPILL_SLOTS; slot++) {
        if (__atomic_load_n(&registry->active[slot], __ATOMIC_ACQUIRE)) continue;
        for (long index = 0; index <= length; index++) registry->directories[slot][index] = directory[index];
        registry->partitions[slot] = partitions;
        __atomic_store_n(&registry->active[slot], 1, __ATOMIC_RELEASE);
        return slot;
    }
    return -1;
}

/// Call it inside the gate.
static inline void navreplay_spill_unregister(int slot) {
    if (slot >= 0) __atomic_store_n(&navreplay_spill_registry()->active[slot], 0, __ATOMIC_RELEASE);
}

/// `directory` + `/` + `name` + the decimal `number` (none when negative), into `path`.
static inline void navreplay_spill_path(char *path, const char *directory, const char *name, long number) {
    long at = 0;
    while (directory[at] != 0) { path[at] = directory[at]; at++; }
    path[at++] = '/';
    for (; *name != 0; name++) path[at++] = *name;
    if (number >= 0) {
        char digits[24];
        int count = 0;
        do { digits[count++] = (char)('0' + number % 10); number /= 10; } while (number > 0);
        while (count > 0) path[at++] = digits[--count];
    }
    path[at] = 0;
}

/// Closes the gate for good, waits (a second at most: the creator inside may be the very
/// thread a handler interrupted) until no creator is inside, then removes every registered
/// directory: its numbered files of every kind (`part-`, `out-`, `bad-`, `ids-`, `copy-`),
/// `bad-reading`, then itself. Async-signal-safe.
static inline void navreplay_spill_remove_all(void) {
    struct navreplay_spill_registry *registry = navreplay_spill_registry();
    __atomic_store_n(&registry->closed, 1, __ATOMIC_SEQ_CST);
    for (int waited = 0; __atomic_load_n(&registry->inside, __ATOMIC_SEQ_CST) > 0 && waited < 1000; waited++) {
        struct timespec millisecond = {0, 1000000};
        nanosleep(&millisecond, 0);
    }
    char path[NAVREPLAY_SPILL_PATH];
    for (int slot = 0; slot < NAVREPLAY_SPILL_SLOTS; slot++) {
        if (!__atomic_load_n(&registry->active[slot], __ATOMIC_ACQUIRE)) continue;
        const char *directory = registry->directories[slot];
        for (long partition = 0; partition < registry->partitions[slot]; partition++) {
            navreplay_spill_path(path, directory, "part-", partition);
            unlink(path);
            navreplay_spill_path(path, directory, "out-", partition);
            unlink(path);
            navreplay_spill_path(path, directory, "bad-", partition);
            unlink(path);
            navreplay_spill_path(path, directory, "ids-", partition);
            unlink(path);
            navreplay_spill_path(path, directory, "copy-", partition);
            unlink(path);
        }
        navreplay_spill_path(path, directory, "bad-reading", -1);
        unlink(path);
        rmdir(directory);
    }
}

// MARK: The mapped-file fault registry

/// A page past a mapped file's new end raises SIGBUS. The inputs mapped are registered here
/// (their address range and path), so that a SIGBUS handler, which the executable installs, can
/// tell a shrunk input from a real fault and name it. Fixed memory that registering never
/// moves, for the reasons the spill registry above is: the handler reads no Swift array that
/// another thread may be growing.

#define NAVREPLAY_MAPPED_SLOTS 64
#define NAVREPLAY_MAPPED_PATH 4608

struct navreplay_mapped_registry {
    /// 1 while a slot holds a mapped input.
    int active[NAVREPLAY_MAPPED_SLOTS];
    unsigned long start[NAVREPLAY_MAPPED_SLOTS];
    unsigned long end[NAVREPLAY_MAPPED_SLOTS];
    long length[NAVREPLAY_MAPPED_SLOTS];
    char path[NAVREPLAY_MAPPED_SLOTS][NAVREPLAY_MAPPED_PATH];
};

/// One registry for the process, as the spill registry above.
__attribute__((weak, noinline)) struct navreplay_mapped_registry *navreplay_mapped_registry(void) {
    static struct navreplay_mapped_registry registry;  // zero pages until a file is mapped
    return &registry;
}

/// Registers the mapping of `count` bytes at `start` and the path of its file. Call it one
/// thread at a time. Returns the slot, or -1 when every slot is taken or the path is too long.
static inline int navreplay_mapped_register(const void *start, long count, const char *path) {
    struct navreplay_mapped_registry *registry = navreplay_mapped_registry();
    long length = 0;
    while (path[length] != 0) length++;
    if (length >= NAVREPLAY_MAPPED_PATH) return -1;
    for (int slot = 0; slot < NAVREPLAY_MAPPED_SLOTS; slot++) {
        if (__atomic_load_n(&registry->active[slot], __ATOMIC_ACQUIRE)) continue;
        for (long index = 0; index < length; index++) registry->path[slot][index] = path[index];
        registry->length[slot] = length;
        registry->start[slot] = (unsigned long)start;
        registry->end[slot] = (unsigned long)start + (unsigned long)count;
        __atomic_store_n(&registry->active[slot], 1, __ATOMIC_RELEASE);
        return slot;
    }
    return -1;
}

/// Call it one thread at a time, before the mapping goes.
static inline void navreplay_mapped_unregister(int slot) {
    if (slot >= 0) __atomic_store_n(&navreplay_mapped_registry()->active[slot], 0, __ATOMIC_RELEASE);
}

/// The slot of the mapped input `address` lies in, or -1. Async-signal-safe.
static inline int navreplay_mapped_find(const void *address) {
    struct navreplay_mapped_registry *registry = navreplay_mapped_registry();
    unsigned long at = (unsigned long)address;
    for (int slot = 0; slot < NAVREPLAY_MAPPED_SLOTS; slot++) {
        if (__atomic_load_n(&registry->active[slot], __ATOMIC_ACQUIRE) && at >= registry->start[slot] && at < registry->end[slot])
            return slot;
    }
    return -1;
}

#endif
