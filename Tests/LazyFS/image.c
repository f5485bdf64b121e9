/* The backing folder: loaded into memory at mount (as both the current and the durable state),
 * and replaced at the end by the durable state (a power cut) or the current one (a clean unmount). */
#include "lazyfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- loading --- */

struct seen { dev_t dev; ino_t ino; struct inode *node; };
static struct seen *seen;
static size_t nseen, capseen;

static struct inode *seen_find(const struct stat *st)
{
    for (size_t i = 0; i < nseen; i++)
        if (seen[i].dev == st->st_dev && seen[i].ino == st->st_ino)
            return seen[i].node;
    return NULL;
}

static void seen_add(const struct stat *st, struct inode *node)
{
    if (nseen == capseen) {
        capseen = capseen ? capseen * 2 : 16;
        seen = realloc(seen, capseen * sizeof *seen);
        if (!seen)
            abort();
    }
    seen[nseen++] = (struct seen){ st->st_dev, st->st_ino, node };
}

static void set_times(struct inode *node, const struct stat *st)
{
    node->atime = st->st_atim;
    node->mtime = st->st_mtim;
    node->ctime = st->st_ctim;
}

static int read_file(int dirfd, const char *name, struct inode *node, size_t size)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    node->cur.data = malloc(size ? size : 1);
    node->dur.data = malloc(size ? size : 1);
    if (!node->cur.data || !node->dur.data)
        abort();
    size_t done = 0;
    while (done < size) {
        ssize_t n = read(fd, node->cur.data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? -errno : -EIO;
            close(fd);
            return err;
        }
        done += (size_t)n;
    }
    close(fd);
    memcpy(node->dur.data, node->cur.data, size);
    node->cur.size = node->cur.cap = node->dur.size = node->dur.cap = size;
    fs.bytes_used += size;
    return 0;
}

/* A listing of `dirfd` from its start, on a copy of it (closedir closes the copy, not dirfd); NULL
 * with errno set when it cannot be made. */
static DIR *open_listing(int dirfd)
{
    int copy = dup(dirfd);
    DIR *stream = copy < 0 ? NULL : fdopendir(copy);
    if (!stream) {
        int saved = errno;
        if (copy >= 0)
            close(copy);
        errno = saved;
        return NULL;
    }
    rewinddir(stream); /* the copy shares its offset with dirfd, which an earlier listing moved */
    return stream;
}

static int load_dir(int dirfd, struct inode *dir, const char *path)
{
    DIR *stream = open_listing(dirfd);
    if (!stream)
        return -errno;
    int err = 0;
    struct dirent *de;
    while (!err && (errno = 0, de = readdir(stream))) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            err = -errno;
            break;
        }
        struct inode *node = S_ISREG(st.st_mode) && st.st_nlink > 1 ? seen_find(&st) : NULL;
        if (!node) {
            if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
                fprintf(stderr, "lazyfs: skipping %s/%s: not a file, folder or symbolic link\n", path, name);
                continue;
            }
            node = inode_new(st.st_mode, st.st_uid, st.st_gid);
            if (!node)
                abort();
            set_times(node, &st);
            if (S_ISREG(st.st_mode)) {
                if (st.st_nlink > 1)
                    seen_add(&st, node);
                err = read_file(dirfd, name, node, (size_t)st.st_size);
            } else if (S_ISLNK(st.st_mode)) {
                char target[4096];
                ssize_t n = readlinkat(dirfd, name, target, sizeof target - 1);
                if (n < 0) {
                    err = -errno;
                } else {
                    target[n] = 0;
                    node->target = strdup(target);
                }
            } else {
                int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0) {
                    err = -errno;
                } else {
                    char subpath[4096];
                    snprintf(subpath, sizeof subpath, "%s/%s", path, name);
                    err = load_dir(sub, node, subpath);
                    close(sub);
                }
            }
        }
        entries_add(&dir->cur_entries, name, node->ino);
        entries_add(&dir->dur_entries, name, node->ino);
        node->cur_links++;
        node->dur_links++;
        if (is_dir(node))
            node->parent = dir->ino;
    }
    if (!err && errno)
        err = -errno;
    closedir(stream);
    if (err)
        fprintf(stderr, "lazyfs: cannot load %s: %s\n", path, strerror(-err));
    return err;
}

int image_load(void)
{
    struct stat st;
    if (fstat(fs.backing_fd, &st) != 0)
        return -errno;
    struct inode *root = inode_new(st.st_mode, st.st_uid, st.st_gid);
    if (!root || root->ino != FUSE_ROOT_ID)
        abort();
    set_times(root, &st);
    root->cur_links = root->dur_links = 1; /* the mount holds it */
    int err = load_dir(fs.backing_fd, root, ".");
    free(seen);
    seen = NULL;
    nseen = capseen = 0;
    return err;
}

/* --- writing --- */

static int remove_children(int dirfd)
{
    DIR *stream = open_listing(dirfd);
    if (!stream)
        return -errno;
    int err = 0;
    struct dirent *de;
    while ((errno = 0, de = readdir(stream))) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (unlinkat(dirfd, name, 0) == 0)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            err = -errno;
            break;
        }
        int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) {
            err = -errno;
            break;
        }
        fchmod(sub, 0700); /* a read-only folder's entries can be removed once it is writable */
        err = remove_children(sub);
        close(sub);
        if (!err && unlinkat(dirfd, name, AT_REMOVEDIR) != 0)
            err = -errno;
        if (err)
            break;
        rewinddir(stream); /* the listing may have shifted under the removals */
    }
    closedir(stream);
    return err;
}

struct image_stats {
    bool durable;
    uint64_t kept, bytes;
    unsigned files, dirs;
};

static void set_owner_mode_times(int fd, const struct inode *node)
{
    if (geteuid() == 0)
        (void)!fchown(fd, node->uid, node->gid);
    fchmod(fd, node->mode & 07777);
    struct timespec times[2] = { node->atime, node->mtime };
    futimens(fd, times);
}

static int write_file(int dirfd, const char *name, struct inode *node, struct image_stats *stats)
{
    struct bytes data = stats->durable ? file_after_cut(node, &stats->kept) : node->cur;
    int err = 0;
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        err = -errno;
    } else {
        size_t done = 0;
        while (done < data.size) {
            ssize_t n = write(fd, data.data + done, data.size - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                err = n < 0 ? -errno : -EIO;
                break;
            }
            done += (size_t)n;
        }
        set_owner_mode_times(fd, node);
        close(fd);
    }
    stats->bytes += data.size;
    stats->files++;
    if (stats->durable)
        free(data.data);
    return err;
}

static int write_dir(int dirfd, struct inode *dir, const char *path, struct image_stats *stats)
{
    struct entries *list = stats->durable ? &dir->dur_entries : &dir->cur_entries;
    for (size_t i = 0; i < list->count; i++) {
        const char *name = list->items[i].name;
        struct inode *child = inode_get(list->items[i].ino);
        char child_path[4096];
        snprintf(child_path, sizeof child_path, "%s%s%s", path, *path ? "/" : "", name);
        int err = 0;
        if (child->image_path && !is_dir(child)) {
            /* A second name of a file already written: a hard link, as on the disk. */
            if (linkat(fs.backing_fd, child->image_path, dirfd, name, 0) != 0)
                err = -errno;
        } else if (child->image_path) {
            /* Entries synced in one folder and not in another can name a folder twice (a rename
             * between folders); a disk cannot show that, so it is written at its first path only. */
            fprintf(stderr, "lazyfs: %s names a folder already written at %s; skipped\n", child_path,
                    child->image_path);
            continue;
        } else if (is_reg(child)) {
            err = write_file(dirfd, name, child, stats);
        } else if (is_lnk(child)) {
            if (symlinkat(child->target, dirfd, name) != 0)
                err = -errno;
            else if (geteuid() == 0)
                (void)!fchownat(dirfd, name, child->uid, child->gid, AT_SYMLINK_NOFOLLOW);
        } else {
            int sub = -1;
            if (mkdirat(dirfd, name, 0700) != 0 ||
                (sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
                err = -errno;
            } else {
                child->image_path = strdup(child_path);
                err = write_dir(sub, child, child_path, stats);
                set_owner_mode_times(sub, child); /* after its entries: it may be read-only */
                close(sub);
                stats->dirs++;
            }
        }
        if (!child->image_path)
            child->image_path = strdup(child_path);
        if (err) {
            fprintf(stderr, "lazyfs: cannot write %s: %s\n", child_path, strerror(-err));
            return err;
        }
    }
    return 0;
}

int image_write(bool durable, uint64_t *kept_bytes, unsigned *files, unsigned *dirs, uint64_t *bytes)
{
    for (size_t ino = 0; ino < fs.ninodes; ino++)
        if (fs.inodes[ino]) {
            free(fs.inodes[ino]->image_path);
            fs.inodes[ino]->image_path = NULL;
        }
    struct inode *root = inode_get(FUSE_ROOT_ID);
    int err = remove_children(fs.backing_fd);
    if (err) {
        fprintf(stderr, "lazyfs: cannot empty the backing folder: %s\n", strerror(-err));
        return err;
    }
    struct image_stats stats = { .durable = durable };
    root->image_path = strdup(".");
    err = write_dir(fs.backing_fd, root, "", &stats);
    set_owner_mode_times(fs.backing_fd, root);
    *kept_bytes = stats.kept;
    *files = stats.files;
    *dirs = stats.dirs;
    *bytes = stats.bytes;
    return err;
}
