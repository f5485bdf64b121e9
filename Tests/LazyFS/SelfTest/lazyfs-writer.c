/* lazyfs-writer: the file operations ci/lazyfs-selftest runs on a lazyfs mount, each one a way an
 * application writes, with or without the fsyncs that make it durable. Prints what it acknowledged;
 * exits non-zero on any failed call.
 *
 *   replace DIR NAME TEXT [--no-file-sync] [--no-dir-sync]
 *       writes DIR/.NAME.tmp, fsyncs it, renames it to DIR/NAME, fsyncs DIR ("acknowledged").
 *   append FILE COUNT EVERY
 *       creates FILE (synced with its folder), appends COUNT records of RECORD bytes, fsyncs after every
 *       EVERY-th, printing "synced N" (N records durable); the records after the last fsync are not synced.
 *   expect-append FILE SYNCED COUNT MODE
 *       checks FILE after a cut: its first SYNCED records exactly; past them, with MODE none nothing,
 *       with prefix a prefix of the later records, with reorder later record bytes or zeros.
 *       Prints "kept N" (bytes kept past the synced records).
 *   mmap FILE SIZE sync|nosync
 *       creates FILE of SIZE zero bytes (synced with its folder), fills it with 'M' through a shared
 *       mapping, then fsyncs the descriptor (sync) or not, and closes it.
 *   unlink DIR NAME [--no-dir-sync]
 *   locks FILE
 *       two processes: an fcntl write lock and a flock held by one must keep the other out (EAGAIN),
 *       and let it in once released. Prints "locks ok".
 *   posix DIR
 *       the semantics a store relies on, in an empty DIR: hard links, rename over a file,
 *       RENAME_NOREPLACE and RENAME_EXCHANGE, O_EXCL, ENOTEMPTY, an open file after its unlink,
 *       truncation past the end, a listing of many entries. Prints "posix ok".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { RECORD = 1000 }; /* an append's size: pages hold parts of records, so a torn cut shows */

static void fail(const char *what, const char *path)
{
    fprintf(stderr, "lazyfs-writer: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static void write_all(int fd, const char *data, size_t len, const char *path)
{
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fail("write", path);
        data += n;
        len -= (size_t)n;
    }
}

static void sync_folder(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        fail("open", dir);
    if (fsync(fd) != 0)
        fail("fsync", dir);
    close(fd);
}

static char *folder_of(const char *path)
{
    char *dir = strdup(path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return strdup(".");
    *slash = 0;
    return dir;
}

static bool has_flag(int argc, char **argv, const char *flag)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], flag) == 0)
            return true;
    return false;
}

static int cmd_replace(int argc, char **argv)
{
    const char *dir = argv[2], *name = argv[3], *text = argv[4];
    char tmp[4096], final[4096];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    snprintf(final, sizeof final, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        fail("open", tmp);
    write_all(fd, text, strlen(text), tmp);
    if (!has_flag(argc, argv, "--no-file-sync") && fsync(fd) != 0)
        fail("fsync", tmp);
    close(fd);
    if (rename(tmp, final) != 0)
        fail("rename", tmp);
    if (!has_flag(argc, argv, "--no-dir-sync"))
        sync_folder(dir);
    printf("acknowledged\n");
    return 0;
}

static void record(long i, char *out)
{
    /* "record 000012 " then a letter that changes with i, then a newline: every byte says where it is */
    int n = snprintf(out, RECORD, "record %06ld ", i);
    memset(out + n, 'a' + (char)(i % 26), RECORD - (size_t)n - 1);
    out[RECORD - 1] = '\n';
}

static int cmd_append(char **argv)
{
    const char *path = argv[2];
    long count = atol(argv[3]), every = atol(argv[4]);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (fd < 0)
        fail("open", path);
    if (fsync(fd) != 0)
        fail("fsync", path);
    char *dir = folder_of(path);
    sync_folder(dir);
    free(dir);
    char buf[RECORD];
    for (long i = 1; i <= count; i++) {
        record(i, buf);
        write_all(fd, buf, RECORD, path);
        if (i % every == 0) {
            if (fsync(fd) != 0)
                fail("fsync", path);
            printf("synced %ld\n", i);
            fflush(stdout);
        }
    }
    printf("written %ld\n", count);
    close(fd);
    return 0;
}

static int cmd_expect_append(char **argv)
{
    const char *path = argv[2], *mode = argv[5];
    long synced = atol(argv[3]), count = atol(argv[4]);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        fail("open", path);
    struct stat st;
    fstat(fd, &st);
    size_t size = (size_t)st.st_size, want = (size_t)synced * RECORD, most = (size_t)count * RECORD;
    char *data = malloc(size + 1), *expected = malloc(most + 1);
    if (read(fd, data, size) != (ssize_t)size)
        fail("read", path);
    close(fd);
    for (long i = 1; i <= count; i++)
        record(i, expected + (i - 1) * RECORD);
    if (size < want || size > most || memcmp(data, expected, want) != 0) {
        fprintf(stderr, "lazyfs-writer: %s: %zu bytes; the %ld synced records are not all there intact\n", path,
                size, synced);
        return 1;
    }
    size_t kept = 0;
    for (size_t i = want; i < size; i++) {
        if (data[i] == expected[i])
            kept++;
        else if (strcmp(mode, "reorder") != 0 || data[i] != 0) {
            fprintf(stderr, "lazyfs-writer: %s: byte %zu is %d, not written there (mode %s)\n", path, i, data[i], mode);
            return 1;
        }
    }
    if (strcmp(mode, "none") == 0 && kept) {
        fprintf(stderr, "lazyfs-writer: %s: %zu unsynced bytes survived without --torn\n", path, kept);
        return 1;
    }
    printf("kept %zu\n", kept);
    return 0;
}

static int cmd_mmap(char **argv)
{
    const char *path = argv[2];
    size_t size = (size_t)atol(argv[3]);
    bool sync = strcmp(argv[4], "sync") == 0;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        fail("open", path);
    if (ftruncate(fd, (off_t)size) != 0 || fsync(fd) != 0)
        fail("ftruncate+fsync", path);
    char *dir = folder_of(path);
    sync_folder(dir);
    free(dir);
    char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        fail("mmap", path);
    memset(map, 'M', size);
    /* fsync, not msync: the kernel must write the dirty pages to the file system before its FSYNC. */
    if (sync && fsync(fd) != 0)
        fail("fsync", path);
    munmap(map, size);
    close(fd);
    printf("mapped %zu %s\n", size, sync ? "synced" : "unsynced");
    return 0;
}

static int cmd_unlink(int argc, char **argv)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[2], argv[3]);
    if (unlink(path) != 0)
        fail("unlink", path);
    if (!has_flag(argc, argv, "--no-dir-sync"))
        sync_folder(argv[2]);
    printf("unlinked\n");
    return 0;
}

/* One lock held by the parent, tried by a child: 0 when the child was kept out, then let in. */
static int lock_pair(const char *path, bool use_flock)
{
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0)
        fail("open", path);
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
    if (use_flock ? flock(fd, LOCK_EX | LOCK_NB) : fcntl(fd, F_SETLK, &fl))
        fail("lock", path);
    int to_child[2], to_parent[2];
    if (pipe(to_child) || pipe(to_parent))
        fail("pipe", path);
    pid_t pid = fork();
    if (pid == 0) {
        int cfd = open(path, O_RDWR);
        struct flock cl = fl;
        int held = use_flock ? flock(cfd, LOCK_EX | LOCK_NB) : fcntl(cfd, F_SETLK, &cl);
        int kept_out = held != 0 && (errno == EAGAIN || errno == EACCES || errno == EWOULDBLOCK);
        char c = 0;
        (void)!write(to_parent[1], "x", 1);
        (void)!read(to_child[0], &c, 1); /* the parent released its lock */
        cl = fl;
        int let_in = (use_flock ? flock(cfd, LOCK_EX | LOCK_NB) : fcntl(cfd, F_SETLK, &cl)) == 0;
        _exit(kept_out && let_in ? 0 : 1);
    }
    char c;
    (void)!read(to_parent[0], &c, 1);
    fl.l_type = F_UNLCK;
    if (use_flock ? flock(fd, LOCK_UN) : fcntl(fd, F_SETLK, &fl))
        fail("unlock", path);
    (void)!write(to_child[1], "x", 1);
    int status;
    waitpid(pid, &status, 0);
    close(fd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int cmd_locks(char **argv)
{
    if (lock_pair(argv[2], false) != 0) {
        fprintf(stderr, "lazyfs-writer: fcntl locks do not exclude another process\n");
        return 1;
    }
    if (lock_pair(argv[2], true) != 0) {
        fprintf(stderr, "lazyfs-writer: flock does not exclude another process\n");
        return 1;
    }
    printf("locks ok\n");
    return 0;
}


#define EXPECT(cond, what)                                                    \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "lazyfs-writer: posix: %s (errno %s)\n", what, strerror(errno)); \
            return 1;                                                         \
        }                                                                     \
    } while (0)

static void put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        fail("open", path);
    write_all(fd, text, strlen(text), path);
    close(fd);
}

static bool holds(const char *path, const char *text)
{
    char buf[256] = { 0 };
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n == (ssize_t)strlen(text) && memcmp(buf, text, (size_t)n) == 0;
}

static int cmd_posix(const char *dir)
{
    char a[4096], b[4096], c[4096], sub[2048], path[4096];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    snprintf(c, sizeof c, "%s/c", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    struct stat sa, sb;

    put(a, "alpha");
    EXPECT(link(a, b) == 0, "link");
    EXPECT(stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_ino == sb.st_ino && sa.st_nlink == 2, "a hard link is one inode with two links");
    put(b, "beta"); /* through the other name */
    EXPECT(holds(a, "beta"), "a write through one name shows through the other");
    EXPECT(unlink(a) == 0 && holds(b, "beta") && stat(b, &sb) == 0 && sb.st_nlink == 1, "unlinking one name keeps the other");

    put(c, "gamma");
    EXPECT(renameat2(AT_FDCWD, b, AT_FDCWD, c, RENAME_NOREPLACE) != 0 && errno == EEXIST, "RENAME_NOREPLACE refuses an existing name");
    EXPECT(renameat2(AT_FDCWD, b, AT_FDCWD, c, RENAME_EXCHANGE) == 0 && holds(b, "gamma") && holds(c, "beta"), "RENAME_EXCHANGE swaps");
    EXPECT(rename(b, c) == 0 && holds(c, "gamma") && access(b, F_OK) != 0, "rename replaces");
    EXPECT(open(c, O_WRONLY | O_CREAT | O_EXCL, 0644) < 0 && errno == EEXIST, "O_EXCL refuses an existing name");

    EXPECT(mkdir(sub, 0755) == 0, "mkdir");
    snprintf(path, sizeof path, "%s/inner", sub);
    put(path, "inner");
    EXPECT(rmdir(sub) != 0 && errno == ENOTEMPTY, "rmdir of a non-empty folder");
    EXPECT(stat(dir, &sa) == 0 && sa.st_nlink == 3, "a folder's link count counts its subfolders");

    int fd = open(c, O_RDWR);
    EXPECT(fd >= 0 && unlink(c) == 0, "unlink an open file");
    EXPECT(pwrite(fd, "delta", 5, 0) == 5 && fsync(fd) == 0, "write and fsync an unlinked file");
    char buf[8] = { 0 };
    EXPECT(pread(fd, buf, 5, 0) == 5 && memcmp(buf, "delta", 5) == 0, "read an unlinked file");
    EXPECT(ftruncate(fd, 10000) == 0 && pread(fd, buf, 4, 9000) == 4 && memcmp(buf, "\0\0\0\0", 4) == 0, "truncation past the end reads zeros");
    close(fd);

    for (int i = 0; i < 1000; i++) {
        snprintf(path, sizeof path, "%s/many-%04d", sub, i);
        put(path, "x");
    }
    DIR *listing = opendir(sub);
    int seen = 0;
    for (struct dirent *de; (de = readdir(listing));)
        seen++;
    closedir(listing);
    EXPECT(seen == 1000 + 1 + 2, "a listing of 1003 entries");
    printf("posix ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "replace") == 0 && argc >= 5)
        return cmd_replace(argc, argv);
    if (strcmp(cmd, "append") == 0 && argc == 5)
        return cmd_append(argv);
    if (strcmp(cmd, "expect-append") == 0 && argc == 6)
        return cmd_expect_append(argv);
    if (strcmp(cmd, "mmap") == 0 && argc == 5)
        return cmd_mmap(argv);
    if (strcmp(cmd, "unlink") == 0 && argc >= 4)
        return cmd_unlink(argc, argv);
    if (strcmp(cmd, "locks") == 0 && argc == 3)
        return cmd_locks(argv);
    if (strcmp(cmd, "posix") == 0 && argc == 3)
        return cmd_posix(argv[2]);
    fprintf(stderr, "usage: see the comment at the top of Tests/LazyFS/SelfTest/lazyfs-writer.c\n");
    return 2;
}
