#ifndef CSQLITE_CHECKSUMS_H
#define CSQLITE_CHECKSUMS_H

// The event store's page checksums: a SQLite VFS, "navreplay-checksums", over the system's
// default one, in the manner of SQLite's cksumvfs (which the system library does not build in).
//
// A database whose pages reserve 8 bytes at their end (byte 20 of its header is 8) has, in those
// bytes, a 64-bit checksum of the rest of the page: written with every page written to the
// database or its write-ahead log, and checked with every page read from either. A page whose
// checksum fails is read as SQLITE_IOERR_DATA, never as data. A database without the 8 reserved
// bytes is read and written as the default VFS does (the store refuses one: `EventStore`).
//
// Header-only like shim.h: Swift registers the VFS once (`navreplay_checksums_register`) and
// checks pages it reads itself with `navreplay_checksums_page_ok` (`navreplay verify`).

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#define NAVREPLAY_CHECKSUMS_VFS "navreplay-checksums"
#define NAVREPLAY_CHECKSUMS_RESERVE 8
/// SQLITE_IOERR_DATA, which Swift does not import (a macro of an expression).
static inline int navreplay_checksums_failed(void) { return SQLITE_IOERR_DATA; }

typedef struct NavChecksumsFile {
    sqlite3_file base;
    /// The database's file (itself for the database; its database for a write-ahead log).
    struct NavChecksumsFile *database;
    /// Whether the database's pages carry checksums (byte 20 of its header is 8).
    int checked;
    /// The 1-based page (of the database) or frame (of its write-ahead log) whose checksum
    /// failed last, kept in the database's file.
    int64_t failedAt;
    int failedInLog;
    int isLog;
} NavChecksumsFile;

#define NAVREPLAY_CHECKSUMS_REAL(p) ((sqlite3_file *)(((NavChecksumsFile *)(p)) + 1))

/// A 64-bit checksum of `count` bytes (a multiple of 8), a word at a time.
static inline uint64_t navreplay_checksums_of(const unsigned char *bytes, int count) {
    uint64_t high = 0x9E3779B97F4A7C15ULL, low = 0xC2B2AE3D27D4EB4FULL;
    for (int at = 0; at + 8 <= count; at += 8) {
        uint64_t word;
        memcpy(&word, bytes + at, 8);
        low = (low ^ word) * 0x100000001B3ULL;
        high = (high + word + (low >> 29)) * 0xFF51AFD7ED558CCDULL;
    }
    return high ^ (low << 1) ^ (low >> 63);
}

/// Whether `page` (of `size` bytes, its last 8 the checksum) is whole.
static inline int navreplay_checksums_page_ok(const unsigned char *page, int size) {
    uint64_t sum = navreplay_checksums_of(page, size - NAVREPLAY_CHECKSUMS_RESERVE);
    return memcmp(&sum, page + size - NAVREPLAY_CHECKSUMS_RESERVE, 8) == 0;
}

static inline int navreplay_checksums_is_page(int amount) { return amount >= 512 && (amount & (amount - 1)) == 0; }

/// A database header read or written: whether its pages carry checksums.
static inline void navreplay_checksums_header(NavChecksumsFile *file, const void *buffer, int amount, sqlite3_int64 offset) {
    const unsigned char *bytes = (const unsigned char *)buffer;
    if (!file->isLog && offset == 0 && amount >= 100 && memcmp(bytes, "SQLite format 3", 16) == 0) {
        file->checked = bytes[20] == NAVREPLAY_CHECKSUMS_RESERVE;
    }
}

static int navreplay_checksums_close(sqlite3_file *f) {
    return NAVREPLAY_CHECKSUMS_REAL(f)->pMethods->xClose(NAVREPLAY_CHECKSUMS_REAL(f));
}

static int navreplay_checksums_read(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    NavChecksumsFile *file = (NavChecksumsFile *)f;
    int status = NAVREPLAY_CHECKSUMS_REAL(f)->pMethods->xRead(NAVREPLAY_CHECKSUMS_REAL(f), buffer, amount, offset);
    if (status != SQLITE_OK) return status;
    navreplay_checksums_header(file, buffer, amount, offset);
    if (file->database && file->database->checked && navreplay_checksums_is_page(amount)
        && !navreplay_checksums_page_ok((const unsigned char *)buffer, amount)) {
        file->database->failedAt = file->isLog ? (offset - 32) / (amount + 24) + 1 : offset / amount + 1;
        file->database->failedInLog = file->isLog;
        return SQLITE_IOERR_DATA;
    }
    return SQLITE_OK;
}

static int navreplay_checksums_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    NavChecksumsFile *file = (NavChecksumsFile *)f;
    navreplay_checksums_header(file, buffer, amount, offset);
    if (file->database && file->database->checked && navreplay_checksums_is_page(amount)) {
        // The page's last 8 bytes are reserved: SQLite keeps nothing there.
        unsigned char *page = (unsigned char *)buffer;
        uint64_t sum = navreplay_checksums_of(page, amount - NAVREPLAY_CHECKSUMS_RESERVE);
        memcpy(page + amount - NAVREPLAY_CHECKSUMS_RESERVE, &sum, 8);
    }
    return NAVREPLAY_CHECKSUMS_REAL(f)->pMethods->xWrite(NAVREPLAY_CHECKSUMS_REAL(f), buffer, amount, offset);
}

#define NAVREPLAY_CHECKSUMS_PASS(name, signature, call) \
    static int navreplay_checksums_##name signature { \
        sqlite3_file *real = NAVREPLAY_CHECKSUMS_REAL(f); \
        return real->pMethods->call; \
    }
NAVREPLAY_CHECKSUMS_PASS(truncate, (sqlite3_file * f, sqlite3_int64 size), xTruncate(real, size))
NAVREPLAY_CHECKSUMS_PASS(sync, (sqlite3_file * f, int flags), xSync(real, flags))
NAVREPLAY_CHECKSUMS_PASS(file_size, (sqlite3_file * f, sqlite3_int64 *size), xFileSize(real, size))
NAVREPLAY_CHECKSUMS_PASS(lock, (sqlite3_file * f, int level), xLock(real, level))
NAVREPLAY_CHECKSUMS_PASS(unlock, (sqlite3_file * f, int level), xUnlock(real, level))
NAVREPLAY_CHECKSUMS_PASS(reserved, (sqlite3_file * f, int *out), xCheckReservedLock(real, out))
NAVREPLAY_CHECKSUMS_PASS(sector_size, (sqlite3_file * f), xSectorSize(real))
NAVREPLAY_CHECKSUMS_PASS(characteristics, (sqlite3_file * f), xDeviceCharacteristics(real))
NAVREPLAY_CHECKSUMS_PASS(shm_map, (sqlite3_file * f, int page, int size, int extend, void volatile **out),
                         xShmMap(real, page, size, extend, out))
NAVREPLAY_CHECKSUMS_PASS(shm_lock, (sqlite3_file * f, int offset, int count, int flags), xShmLock(real, offset, count, flags))
NAVREPLAY_CHECKSUMS_PASS(shm_unmap, (sqlite3_file * f, int remove), xShmUnmap(real, remove))
NAVREPLAY_CHECKSUMS_PASS(unfetch, (sqlite3_file * f, sqlite3_int64 offset, void *page), xUnfetch(real, offset, page))
#undef NAVREPLAY_CHECKSUMS_PASS

static void navreplay_checksums_shm_barrier(sqlite3_file *f) {
    NAVREPLAY_CHECKSUMS_REAL(f)->pMethods->xShmBarrier(NAVREPLAY_CHECKSUMS_REAL(f));
}

static int navreplay_checksums_file_control(sqlite3_file *f, int op, void *argument) {
    return NAVREPLAY_CHECKSUMS_REAL(f)->pMethods->xFileControl(NAVREPLAY_CHECKSUMS_REAL(f), op, argument);
}

/// No memory-mapped pages: every page is read, and checked, through `xRead`.
static int navreplay_checksums_fetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **page) {
    (void)f, (void)offset, (void)amount;
    *page = 0;
    return SQLITE_OK;
}

/// The file methods (in a function: Swift emits no static variable of a header).
static inline const sqlite3_io_methods *navreplay_checksums_methods(void) {
    static const sqlite3_io_methods methods = {
    3, navreplay_checksums_close, navreplay_checksums_read, navreplay_checksums_write, navreplay_checksums_truncate,
    navreplay_checksums_sync, navreplay_checksums_file_size, navreplay_checksums_lock, navreplay_checksums_unlock,
    navreplay_checksums_reserved, navreplay_checksums_file_control, navreplay_checksums_sector_size,
    navreplay_checksums_characteristics, navreplay_checksums_shm_map, navreplay_checksums_shm_lock,
    navreplay_checksums_shm_barrier, navreplay_checksums_shm_unmap, navreplay_checksums_fetch, navreplay_checksums_unfetch,
    };
    return &methods;
}

static int navreplay_checksums_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out) {
    sqlite3_vfs *real = (sqlite3_vfs *)vfs->pAppData;
    NavChecksumsFile *file = (NavChecksumsFile *)f;
    memset(file, 0, sizeof(*file));
    if ((flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL)) == 0) return real->xOpen(real, name, f, flags, out);
    int status = real->xOpen(real, name, NAVREPLAY_CHECKSUMS_REAL(f), flags, out);
    if (status != SQLITE_OK) return status;
    file->base.pMethods = navreplay_checksums_methods();
    file->isLog = (flags & SQLITE_OPEN_WAL) != 0;
    file->database = file->isLog ? (NavChecksumsFile *)sqlite3_database_file_object(name) : file;
    return SQLITE_OK;
}

#define NAVREPLAY_CHECKSUMS_VFS_PASS(name, result, signature, call) \
    static result navreplay_checksums_##name signature { \
        sqlite3_vfs *real = (sqlite3_vfs *)vfs->pAppData; \
        return real->call; \
    }
NAVREPLAY_CHECKSUMS_VFS_PASS(delete, int, (sqlite3_vfs * vfs, const char *name, int sync), xDelete(real, name, sync))
NAVREPLAY_CHECKSUMS_VFS_PASS(access, int, (sqlite3_vfs * vfs, const char *name, int flags, int *out), xAccess(real, name, flags, out))
NAVREPLAY_CHECKSUMS_VFS_PASS(full_path, int, (sqlite3_vfs * vfs, const char *name, int size, char *out),
                             xFullPathname(real, name, size, out))
NAVREPLAY_CHECKSUMS_VFS_PASS(randomness, int, (sqlite3_vfs * vfs, int size, char *out), xRandomness(real, size, out))
NAVREPLAY_CHECKSUMS_VFS_PASS(sleep, int, (sqlite3_vfs * vfs, int microseconds), xSleep(real, microseconds))
NAVREPLAY_CHECKSUMS_VFS_PASS(current_time, int, (sqlite3_vfs * vfs, double *out), xCurrentTime(real, out))
NAVREPLAY_CHECKSUMS_VFS_PASS(last_error, int, (sqlite3_vfs * vfs, int size, char *out), xGetLastError(real, size, out))
NAVREPLAY_CHECKSUMS_VFS_PASS(current_time64, int, (sqlite3_vfs * vfs, sqlite3_int64 *out), xCurrentTimeInt64(real, out))
#undef NAVREPLAY_CHECKSUMS_VFS_PASS

/// Registers the VFS (not as the default one); returns SQLite's status. Call once.
static inline int navreplay_checksums_register(void) {
    static sqlite3_vfs navreplay_checksums_vfs;
    sqlite3_vfs *real = sqlite3_vfs_find(0);
    if (!real) return SQLITE_ERROR;
    navreplay_checksums_vfs.iVersion = 2;
    navreplay_checksums_vfs.szOsFile = (int)sizeof(NavChecksumsFile) + real->szOsFile;
    navreplay_checksums_vfs.mxPathname = real->mxPathname;
    navreplay_checksums_vfs.zName = NAVREPLAY_CHECKSUMS_VFS;
    navreplay_checksums_vfs.pAppData = real;
    navreplay_checksums_vfs.xOpen = navreplay_checksums_open;
    navreplay_checksums_vfs.xDelete = navreplay_checksums_delete;
    navreplay_checksums_vfs.xAccess = navreplay_checksums_access;
    navreplay_checksums_vfs.xFullPathname = navreplay_checksums_full_path;
    navreplay_checksums_vfs.xRandomness = navreplay_checksums_randomness;
    navreplay_checksums_vfs.xSleep = navreplay_checksums_sleep;
    navreplay_checksums_vfs.xCurrentTime = navreplay_checksums_current_time;
    navreplay_checksums_vfs.xGetLastError = navreplay_checksums_last_error;
    navreplay_checksums_vfs.xCurrentTimeInt64 = navreplay_checksums_current_time64;
    return sqlite3_vfs_register(&navreplay_checksums_vfs, 0);
}

static inline NavChecksumsFile *navreplay_checksums_file(sqlite3 *handle) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file) return 0;
    return file->pMethods == navreplay_checksums_methods() ? (NavChecksumsFile *)file : 0;
}

/// The page of the database opened on `handle` whose checksum failed last (negative: the
/// frame of its write-ahead log), or 0.
static inline int64_t navreplay_checksums_failed_at(sqlite3 *handle) {
    NavChecksumsFile *file = navreplay_checksums_file(handle);
    if (!file) return 0;
    return file->failedInLog ? -file->failedAt : file->failedAt;
}

/// Whether the database opened on `handle` (through the VFS) has checksummed pages.
static inline int navreplay_checksums_checked(sqlite3 *handle) {
    NavChecksumsFile *file = navreplay_checksums_file(handle);
    return file && file->checked;
}

#endif
