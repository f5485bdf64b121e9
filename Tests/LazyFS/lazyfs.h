/* lazyfs: a FUSE file system for power-loss tests (Docs/LazyFS.md).
 *
 * Every inode has a *current* state, which every operation reads and changes, and a *durable* state,
 * which is what the disk would hold after a power cut. A file's data and size become durable at its
 * fsync/fdatasync; a directory's entries (creates, renames, unlinks, links in it) at its fsync. A
 * power cut writes the durable state into the backing folder; a clean unmount writes the current one.
 *
 * One thread serves every request (main.c's loop), so nothing here locks.
 */
#ifndef LAZYFS_H
#define LAZYFS_H

#define _GNU_SOURCE
#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stdio.h>
#include <time.h>

/* Torn writes are cut at this granularity: a page either holds a write's bytes or not. */
enum { LAZY_PAGE = 4096 };

/* What a power cut keeps of a file's writes since its last fsync. */
enum torn_mode {
    TORN_NONE,    /* nothing: the file is as it was at its last fsync */
    TORN_PREFIX,  /* a random prefix of its writes (split into pages), in the order they came */
    TORN_REORDER, /* a random subset of those pages: later ones may land without earlier ones */
};

struct bytes {
    char *data;
    size_t size, cap;
};

struct entry {
    char *name;
    uint64_t ino;
};

struct entries {
    struct entry *items;
    size_t count, cap;
};

/* One change to a file's data since its last fsync, kept only with --torn. */
struct logop {
    off_t off;
    size_t len;   /* a write of len bytes at off; 0 for a truncation */
    char *data;   /* NULL for a truncation to off */
};

struct inode {
    uint64_t ino;
    mode_t mode; /* type and permission bits */
    uid_t uid;
    gid_t gid;
    struct timespec atime, mtime, ctime;

    uint64_t nlookup;    /* the kernel's references (lookup counts), released by forget */
    unsigned opens;      /* open handles */
    unsigned cur_links;  /* entries naming it in current directories */
    unsigned dur_links;  /* entries naming it in durable directories */
    uint64_t parent;     /* a directory's current parent (the root's is itself) */

    /* A regular file: current and durable bytes, the pages written since the last fsync. */
    struct bytes cur, dur;
    uint64_t *dirty;
    size_t dirty_words;
    bool unsynced;            /* its current data or size differs from the durable one */
    uint64_t unsynced_bytes;  /* bytes written or zeroed since the last fsync */
    struct logop *log;        /* --torn only */
    size_t nlog, caplog;

    /* A directory: current and durable entries. */
    struct entries cur_entries, dur_entries;

    /* A symbolic link: its target (never changes, so it is durable at once). */
    char *target;

    /* While an image is written: the first path this inode was written at (hard links, loops). */
    char *image_path;
};

struct lazyfs {
    int backing_fd;          /* the backing folder, opened before the mount hides it */
    enum torn_mode torn;
    uint64_t seed, rng;
    double timeout;          /* entry and attribute cache timeout given to the kernel */
    bool log_writes;         /* keep logop records (--torn) */
    struct inode **inodes;   /* by inode number; NULL where freed */
    size_t ninodes;          /* one past the highest number handed out */
    uint64_t bytes_used;     /* current data, for statfs */
    FILE *trace;             /* --trace: every change, sync and read, one line each; NULL without */
};

extern struct lazyfs fs;

/* main.c: one line to the --trace file (nothing without --trace). */
void trace(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* main.c: the durable entries of every folder and the durable size of every file, to the trace. */
void trace_durable_state(void);

/* model.c: inodes, directories, data, fsync. */
struct inode *inode_get(uint64_t ino);
struct inode *inode_new(mode_t mode, uid_t uid, gid_t gid);
void inode_maybe_free(struct inode *node);
void inode_touch(struct inode *node, bool modified);
bool is_dir(const struct inode *node);
bool is_reg(const struct inode *node);
bool is_lnk(const struct inode *node);

ssize_t entries_find(const struct entries *list, const char *name);
void entries_add(struct entries *list, const char *name, uint64_t ino);
void entries_remove_at(struct entries *list, size_t index);
void dir_link(struct inode *dir, const char *name, struct inode *child);
void dir_unlink_at(struct inode *dir, size_t index);
unsigned dir_subdirs(const struct inode *dir);

int file_write(struct inode *node, off_t off, const char *buf, size_t len);
int file_truncate(struct inode *node, off_t size);
int file_zero(struct inode *node, off_t off, off_t len);
void file_sync(struct inode *node);
void dir_sync(struct inode *dir);

int bytes_reserve(struct bytes *b, size_t size);

/* cut.c: the power cut. */
uint64_t rng_next(void);
void count_unsynced(unsigned *files, uint64_t *bytes, unsigned *entries);
/* The data a power cut leaves in a file: its durable bytes, plus what --torn keeps of its log.
 * Returns a buffer the caller frees (data may be NULL for an empty file); *kept counts log bytes kept. */
struct bytes file_after_cut(struct inode *node, uint64_t *kept);

/* image.c: the backing folder. */
int image_load(void);
int image_write(bool durable, uint64_t *kept_bytes, unsigned *files, unsigned *dirs, uint64_t *bytes);

/* ops.c: the FUSE operations. */
extern const struct fuse_lowlevel_ops lazy_ops;

#endif
