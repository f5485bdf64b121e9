/* lazyfs --backing DIR --mount DIR [--seed N] [--torn[=prefix|reorder]] [--timeout SECONDS] [--die-with-parent]
 *        [--trace FILE]
 *
 * Loads DIR into memory, mounts the lazy file system at the mount point (which may be DIR itself),
 * prints "ready" on standard output, and serves requests in the foreground on one thread until:
 *   SIGUSR1             a power cut: writes the durable state into the backing folder, unmounts, exits 0;
 *   SIGTERM, SIGINT,
 *   SIGHUP, an unmount  a clean stop: writes the current state (as if everything was synced), exits 0.
 * Each ends with one line on standard error saying what was kept and dropped. With --die-with-parent
 * the death of the process that started it is a SIGTERM (a clean stop). Docs/LazyFS.md.
 */
#include "lazyfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How often --die-with-parent looks whether the parent is still there. */
#define DEATH_CHECK_MS 100

static int signal_pipe[2] = { -1, -1 };
static volatile sig_atomic_t last_signal;

static void on_signal(int sig)
{
    int saved = errno;
    last_signal = sig;
    (void)!write(signal_pipe[1], "", 1);
    errno = saved;
}

static double ms_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) * 1e3 + (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}

void trace(const char *format, ...)
{
    if (!fs.trace)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    fprintf(fs.trace, "%ld.%06ld ", (long)now.tv_sec, now.tv_nsec / 1000);
    va_list args;
    va_start(args, format);
    vfprintf(fs.trace, format, args);
    va_end(args);
    fputc('\n', fs.trace);
}

void trace_durable_state(void)
{
    if (!fs.trace)
        return;
    for (size_t ino = 0; ino < fs.ninodes; ino++) {
        struct inode *node = fs.inodes[ino];
        if (!node)
            continue;
        if (is_dir(node)) {
            fprintf(fs.trace, "durable folder %zu:", ino);
            for (size_t i = 0; i < node->dur_entries.count; i++)
                fprintf(fs.trace, " %s=%" PRIu64, node->dur_entries.items[i].name, node->dur_entries.items[i].ino);
            fputc('\n', fs.trace);
        } else if (is_reg(node)) {
            fprintf(fs.trace, "file %zu: durable %zu bytes, current %zu%s, links %u current %u durable, %zu log ops\n",
                    ino, node->dur.size, node->cur.size, node->unsynced ? " (unsynced)" : "", node->cur_links,
                    node->dur_links, node->nlog);
        }
    }
}

static void usage(void)
{
    fprintf(stderr,
            "usage: lazyfs --backing DIR --mount DIR [--seed N] [--torn[=prefix|reorder]] [--timeout SECONDS]\n"
            "              [--die-with-parent] [--trace FILE]\n"
            "  SIGUSR1: power cut (keep only what was synced); SIGTERM/SIGINT/unmount: clean stop.\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *backing = NULL, *mountpoint = NULL;
    bool seeded = false, die_with_parent = false;
    pid_t parent = getppid();
    fs.timeout = 10.0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--backing") == 0 && i + 1 < argc) {
            backing = argv[++i];
        } else if (strcmp(arg, "--mount") == 0 && i + 1 < argc) {
            mountpoint = argv[++i];
        } else if (strcmp(arg, "--seed") == 0 && i + 1 < argc) {
            fs.seed = strtoull(argv[++i], NULL, 0);
            seeded = true;
        } else if (strcmp(arg, "--torn") == 0 || strcmp(arg, "--torn=prefix") == 0) {
            fs.torn = TORN_PREFIX;
        } else if (strcmp(arg, "--torn=reorder") == 0) {
            fs.torn = TORN_REORDER;
        } else if (strcmp(arg, "--die-with-parent") == 0) {
            die_with_parent = true;
        } else if (strcmp(arg, "--trace") == 0 && i + 1 < argc) {
            fs.trace = fopen(argv[++i], "we");
            if (!fs.trace) {
                fprintf(stderr, "lazyfs: cannot open the trace %s: %s\n", argv[i], strerror(errno));
                return 1;
            }
        } else if (strcmp(arg, "--timeout") == 0 && i + 1 < argc) {
            fs.timeout = strtod(argv[++i], NULL);
        } else {
            usage();
        }
    }
    if (!backing || !mountpoint)
        usage();
    if (!seeded) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        fs.seed = ((uint64_t)now.tv_sec * 1000000007ULL) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)getpid() << 32);
    }
    fs.rng = fs.seed;
    fs.log_writes = fs.torn != TORN_NONE;
    const char *torn_name = fs.torn == TORN_PREFIX ? ", torn prefix" : fs.torn == TORN_REORDER ? ", torn reorder" : "";

    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    fs.backing_fd = open(backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fs.backing_fd < 0) {
        fprintf(stderr, "lazyfs: cannot open the backing folder %s: %s\n", backing, strerror(errno));
        return 1;
    }
    if (image_load() != 0)
        return 1;
    trace("loaded %s", backing);
    trace_durable_state();

    /* Signals are caught (not blocked) from before the mount, so none can kill us with a mount up. */
    if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* No SA_RESTART: a signal ends any wait of ours with EINTR, and the loop below sees it. */
    sa.sa_flags = 0;
    sigemptyset(&sa.sa_mask);
    int caught[] = { SIGUSR1, SIGTERM, SIGINT, SIGHUP };
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaction(caught[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* The parent is watched by its id (every DEATH_CHECK_MS in the loop below), not with
     * PR_SET_PDEATHSIG: the kernel sends that signal when the *thread* that started us ends, and a
     * test starts lazyfs from a thread of Swift's pool, which may end long before the test. */
    if (die_with_parent && getppid() != parent)
        return 1;

    /* default_permissions: the kernel checks modes (EACCES in a read-only folder); allow_other: the
     * unprivileged users of fault tests can reach it; auto_unmount: fusermount3 unmounts if we die. */
    char options[256];
    snprintf(options, sizeof options, "default_permissions,fsname=lazyfs,subtype=lazyfs,auto_unmount%s",
             geteuid() == 0 ? ",allow_other" : "");
    char *fuse_argv[] = { argv[0], "-o", options, NULL };
    struct fuse_args args = FUSE_ARGS_INIT(3, fuse_argv);
    struct fuse_session *se = fuse_session_new(&args, &lazy_ops, sizeof lazy_ops, NULL);
    if (!se)
        return 1;
    if (fuse_session_mount(se, mountpoint) != 0) {
        fprintf(stderr, "lazyfs: cannot mount at %s\n", mountpoint);
        return 1;
    }
    fprintf(stderr, "lazyfs: mounted %s over %s (seed %" PRIu64 "%s; loaded %" PRIu64 " bytes in %.1f ms)\n",
            mountpoint, backing, fs.seed, torn_name, fs.bytes_used, ms_since(&start));
    printf("ready\n");
    fflush(stdout);

    /* Non-blocking: poll can report a request that is gone by the time we read it (its process was
     * killed, and the kernel withdraws a request nobody has read yet). A blocking read then waited for
     * the next request, which after a writer's SIGKILL never came: the power cut was never acted on. */
    int fuse_fd = fuse_session_fd(se);
    int fd_flags = fcntl(fuse_fd, F_GETFL);
    if (fd_flags < 0 || fcntl(fuse_fd, F_SETFL, fd_flags | O_NONBLOCK) != 0) {
        fprintf(stderr, "lazyfs: cannot make the FUSE device non-blocking: %s\n", strerror(errno));
        fuse_session_unmount(se);
        return 1;
    }
    struct fuse_buf buf = { .mem = NULL };
    bool unmounted = false, failed = false;
    while (!last_signal) {
        if (die_with_parent && getppid() != parent) {
            last_signal = SIGTERM; /* the process that started us is gone: a clean stop */
            break;
        }
        struct pollfd polls[2] = { { .fd = signal_pipe[0], .events = POLLIN }, { .fd = fuse_fd, .events = POLLIN } };
        if (poll(polls, 2, die_with_parent ? DEATH_CHECK_MS : -1) < 0) {
            if (errno == EINTR)
                continue;
            failed = true;
            break;
        }
        if (polls[0].revents || last_signal)
            break; /* a signal: act on it before any further request */
        if (!polls[1].revents)
            continue;
        int res = fuse_session_receive_buf(se, &buf);
        if (res == -EINTR || res == -EAGAIN)
            continue;
        if (res <= 0) {
            unmounted = res == 0 || res == -ENODEV; /* unmounted from outside */
            failed = !unmounted;
            break;
        }
        fuse_session_process_buf(se, &buf);
        if (fuse_session_exited(se)) {
            unmounted = true;
            break;
        }
    }
    free(buf.mem);

    bool cut = last_signal == SIGUSR1;
    struct timespec stop;
    clock_gettime(CLOCK_MONOTONIC, &stop);
    unsigned dropped_files, dropped_entries, files, dirs;
    uint64_t dropped_bytes, kept = 0, bytes;
    count_unsynced(&dropped_files, &dropped_bytes, &dropped_entries);
    trace("%s", cut ? "power cut" : "stop");
    trace_durable_state();
    /* Unmounting closes our end first: every request still waiting fails, as after a power cut. */
    fuse_session_unmount(se);
    int err = image_write(cut, &kept, &files, &dirs, &bytes);
    if (cut)
        fprintf(stderr,
                "lazyfs: power cut (seed %" PRIu64 "%s): dropped %" PRIu64 " unsynced bytes of %u files (%" PRIu64
                " kept torn) and %u unsynced directory entries; wrote %u files, %u folders, %" PRIu64
                " bytes in %.1f ms\n",
                fs.seed, torn_name, dropped_bytes, dropped_files, kept, dropped_entries, files, dirs, bytes,
                ms_since(&stop));
    else
        fprintf(stderr,
                "lazyfs: %s: wrote the current state (%u files, %u folders, %" PRIu64 " bytes; %" PRIu64
                " unsynced bytes of %u files and %u directory entries kept as if synced) in %.1f ms\n",
                unmounted ? "unmounted" : "stopped", files, dirs, bytes, dropped_bytes, dropped_files,
                dropped_entries, ms_since(&stop));
    fuse_session_destroy(se);
    if (fs.trace)
        fclose(fs.trace);
    return err || failed ? 1 : 0;
}
