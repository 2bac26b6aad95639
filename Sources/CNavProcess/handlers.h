#ifndef CNAVPROCESS_HANDLERS_H
#define CNAVPROCESS_HANDLERS_H

// The executable's signal handlers (header-only, as CNavSupport is). Libraries offer the
// registries they read (`shim.h`); only the process decides what a signal does, so only
// `navreplay` installs these, at start-up.

#include <signal.h>
#include <unistd.h>
#include "../CNavSupport/shim.h"

#define NAVREPLAY_FAULT_TEXT 512

/// The words around a shrunk input's path, set once at start-up: the handler writes them with
/// `write` alone (no formatting, no allocation in a handler).
struct navreplay_fault_text {
    char before[NAVREPLAY_FAULT_TEXT];
    long before_length;
    char after[NAVREPLAY_FAULT_TEXT];
    long after_length;
    int claimed;
};

__attribute__((weak, noinline)) struct navreplay_fault_text *navreplay_fault_text(void) {
    static struct navreplay_fault_text text;
    return &text;
}

static inline void navreplay_write_all(const char *bytes, long count) {
    for (long written = 0, step = 0; written < count; written += step) {
        step = write(2, bytes + written, (size_t)(count - written));
        if (step <= 0) break;
    }
}

/// A signal whose default ends the process: remove the spill directories, then exit with
/// 128 + the signal, as a shell reports it.
static inline void navreplay_on_ending_signal(int signal) {
    navreplay_spill_remove_all();
    _exit(128 + signal);
}

/// SIGBUS in a registered mapped input (it shrank): say which, remove the spill directories and
/// exit with status 2 (an input that cannot be read completely) instead of a crash. Any other
/// SIGBUS takes the default action when the instruction runs again.
static inline void navreplay_on_bus(int signal, siginfo_t *info, void *context) {
    (void)signal;
    (void)context;
    int slot = navreplay_mapped_find(info->si_addr);
    if (slot < 0) {
        struct sigaction action;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;
        action.sa_handler = SIG_DFL;
        sigaction(SIGBUS, &action, 0);
        return;
    }
    struct navreplay_fault_text *text = navreplay_fault_text();
    // Threads that fault at once: one reports and exits, the others wait for it.
    if (__atomic_exchange_n(&text->claimed, 1, __ATOMIC_SEQ_CST) != 0) {
        for (;;) pause();
    }
    struct navreplay_mapped_registry *registry = navreplay_mapped_registry();
    navreplay_write_all(text->before, text->before_length);
    navreplay_write_all(registry->path[slot], registry->length[slot]);
    navreplay_write_all(text->after, text->after_length);
    navreplay_spill_remove_all();
    _exit(2);
}

static inline void navreplay_copy_text(char *into, long *length, const char *text) {
    long count = 0;
    while (text[count] != 0 && count < NAVREPLAY_FAULT_TEXT - 1) { into[count] = text[count]; count++; }
    into[count] = 0;
    *length = count;
}

/// Installs `navreplay_on_ending_signal` for `signal`; one ignored when the process started
/// (`nohup`, `trap '' PIPE`) stays ignored. Returns 0, or -1 if `sigaction` failed.
static inline int navreplay_install_ending(int signal) {
    struct sigaction previous;
    if (sigaction(signal, 0, &previous) != 0) return -1;
    if (previous.sa_handler == SIG_IGN) return 0;
    struct sigaction action;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    action.sa_handler = navreplay_on_ending_signal;
    return sigaction(signal, &action, 0);
}

/// Installs the SIGBUS handler, with the words written before and after a shrunk input's path.
static inline int navreplay_install_bus(const char *before, const char *after) {
    struct navreplay_fault_text *text = navreplay_fault_text();
    navreplay_copy_text(text->before, &text->before_length, before);
    navreplay_copy_text(text->after, &text->after_length, after);
    struct sigaction action;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO;
    action.sa_sigaction = navreplay_on_bus;
    return sigaction(SIGBUS, &action, 0);
}

#endif
