#ifndef CNAVSUPPORT_SHIM_H
#define CNAVSUPPORT_SHIM_H

// Header-only (a system-library target): nothing is compiled here, so the binary's debug
// information stays in the form valgrind reads (clang's own objects would bring DWARF 5).
// An incremental build does not notice an edit here: touch the Swift files that call it.

/// Asks the processor to start loading `count` bytes at `address` into the cache: Swift has no
/// prefetch of its own. Used for the lines of a mapped input that a partition references, which
/// lie far apart in the file (each one a cache and TLB miss otherwise).
static inline void navreplay_prefetch(const void *address, long count) {
    const char *bytes = (const char *)address;
    for (long offset = 0; offset < count; offset += 64) {
        __builtin_prefetch(bytes + offset, 0, 0);
    }
}


// MARK: Spill cleanup on a signal

/// Removing spill partitions when a signal ends the run (Ctrl-C, SIGTERM, a closed output pipe).
/// It is in C because a signal handler may call only async-signal-safe functions: it must not
/// allocate (the interrupted thread may hold malloc's lock) nor touch Swift's runtime (metadata,
/// retains). Here it only reads this fixed registry and calls `unlink`, `rmdir`, `nanosleep` and
/// `_exit`. Other threads go on running meanwhile, so creators of spill files and the handler
/// meet at a gate: a creator enters before its `mkdir` or `open` (and its registration) and
/// leaves after; the handler closes the gate, which no creator enters again, and waits until
/// none is inside before it unlinks: so no file appears after its unlink, and the registry does
/// not change under it. Entering and closing are sequentially consistent, so a creator and the
/// handler cannot both miss each other.

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
/// inline` one was a copy per object file: the optimized build inlines these functions across
/// Swift files, and the handler, reading its copy, removed nothing that another copy had
/// registered: a run ended by a shrinking file left its spill directory.)
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

/// Registers a directory and how many partitions it holds; call it inside the gate, one thread
/// at a time. Returns its slot, or -1 when every slot is taken or the path is too long.
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
/// thread this handler interrupted) until no creator is inside, then removes every registered
/// directory: its partition, output, quarantine, event-id ledger and input copy files,
/// then itself.
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

/// The handler for SIGINT, SIGTERM and SIGPIPE: removes the partitions and exits with
/// 128 + the signal, as a shell reports it.
static inline void navreplay_spill_on_signal(int signal) {
    navreplay_spill_remove_all();
    _exit(128 + signal);
}

// MARK: A mapped input that shrinks

/// A page past a mapped file's new end raises SIGBUS. The handler finds the mapped input the
/// faulting address lies in, writes that input's message (which names the file), removes the
/// spill partitions (`navreplay_spill_remove_all`), and exits with status 2 (an input that cannot be read
/// completely) instead of a crash. In C for the reasons the spill handler above is: the
/// registry is fixed memory that registering never moves, so the handler reads no Swift array
/// that another thread may be growing.

#include <signal.h>

#define NAVREPLAY_MAPPED_SLOTS 64
#define NAVREPLAY_MAPPED_MESSAGE 4608

struct navreplay_mapped_registry {
    int installed;
    int claimed;
    /// 1 while a slot holds a mapped input.
    int active[NAVREPLAY_MAPPED_SLOTS];
    unsigned long start[NAVREPLAY_MAPPED_SLOTS];
    unsigned long end[NAVREPLAY_MAPPED_SLOTS];
    long length[NAVREPLAY_MAPPED_SLOTS];
    char message[NAVREPLAY_MAPPED_SLOTS][NAVREPLAY_MAPPED_MESSAGE];
};

/// One registry for the process, as the spill registry above.
__attribute__((weak, noinline)) struct navreplay_mapped_registry *navreplay_mapped_registry(void) {
    static struct navreplay_mapped_registry registry;  // zero pages until a file is mapped
    return &registry;
}

static inline void navreplay_mapped_on_bus(int signal, siginfo_t *info, void *context) {
    (void)signal;
    (void)context;
    struct navreplay_mapped_registry *registry = navreplay_mapped_registry();
    unsigned long address = (unsigned long)info->si_addr;
    int found = -1;
    for (int slot = 0; slot < NAVREPLAY_MAPPED_SLOTS && found < 0; slot++) {
        if (__atomic_load_n(&registry->active[slot], __ATOMIC_ACQUIRE) && address >= registry->start[slot]
            && address < registry->end[slot])
            found = slot;
    }
    if (found < 0) {
        // Not a mapped input: the default action, when the instruction runs again.
        struct sigaction action;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;
        action.sa_handler = SIG_DFL;
        sigaction(SIGBUS, &action, 0);
        return;
    }
    // Threads that fault at once: one reports and exits, the others wait for it.
    if (__atomic_exchange_n(&registry->claimed, 1, __ATOMIC_SEQ_CST) != 0) {
        for (;;) pause();
    }
    const char *message = registry->message[found];
    for (long written = 0, count = 0; written < registry->length[found]; written += count) {
        count = write(2, message + written, (size_t)(registry->length[found] - written));
        if (count <= 0) break;
    }
    navreplay_spill_remove_all();
    _exit(2);
}

/// Registers the mapping of `count` bytes at `start` and the message naming its file (installing
/// the handler the first time). Call it one thread at a
/// time. Returns the slot, or -1 when every slot is taken or the message is too long (a SIGBUS
/// in that file then takes the default action: the process dies of the signal).
static inline int navreplay_mapped_register(const void *start, long count, const char *message) {
    struct navreplay_mapped_registry *registry = navreplay_mapped_registry();
    long length = 0;
    while (message[length] != 0) length++;
    if (length >= NAVREPLAY_MAPPED_MESSAGE) return -1;
    if (!registry->installed) {
        registry->installed = 1;
        struct sigaction action;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_SIGINFO;
        action.sa_sigaction = navreplay_mapped_on_bus;
        sigaction(SIGBUS, &action, 0);
    }
    for (int slot = 0; slot < NAVREPLAY_MAPPED_SLOTS; slot++) {
        if (__atomic_load_n(&registry->active[slot], __ATOMIC_ACQUIRE)) continue;
        for (long index = 0; index < length; index++) registry->message[slot][index] = message[index];
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

#endif
