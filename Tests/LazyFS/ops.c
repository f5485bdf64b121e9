/* The FUSE operations (libfuse3's low-level API), all served from the current state: the helpers
 * they share, attributes, statfs and the table (names.c and files.c hold the rest).
 *
 * The low-level API, not the high-level one: its inode numbers are ours, so every name of a hard link
 * is one kernel inode with one page cache, and an open file that is unlinked stays an inode here
 * instead of being renamed to a hidden file as the high-level API does.
 */
#include "ops.h"

#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>

void fill_attr(const struct inode *node, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = node->ino;
    st->st_mode = node->mode;
    st->st_nlink = is_dir(node) ? 2 + dir_subdirs(node) : node->cur_links;
    st->st_uid = node->uid;
    st->st_gid = node->gid;
    if (is_reg(node))
        st->st_size = (off_t)node->cur.size;
    else if (is_lnk(node))
        st->st_size = (off_t)strlen(node->target);
    else
        st->st_size = 4096;
    st->st_blksize = LAZY_PAGE;
    st->st_blocks = (st->st_size + 511) / 512;
    st->st_atim = node->atime;
    st->st_mtim = node->mtime;
    st->st_ctim = node->ctime;
}

void fill_entry(struct inode *node, struct fuse_entry_param *e)
{
    memset(e, 0, sizeof *e);
    e->ino = node->ino;
    e->attr_timeout = e->entry_timeout = fs.timeout;
    fill_attr(node, &e->attr);
    node->nlookup++;
}

void reply_entry(fuse_req_t req, struct inode *node)
{
    struct fuse_entry_param e;
    fill_entry(node, &e);
    fuse_reply_entry(req, &e);
}

/* The folder `ino`, or NULL with the error replied. */
struct inode *folder(fuse_req_t req, fuse_ino_t ino)
{
    struct inode *dir = inode_get(ino);
    if (!dir) {
        fuse_reply_err(req, ENOENT);
        return NULL;
    }
    if (!is_dir(dir)) {
        fuse_reply_err(req, ENOTDIR);
        return NULL;
    }
    return dir;
}

struct inode *node_or_reply(fuse_req_t req, fuse_ino_t ino)
{
    struct inode *node = inode_get(ino);
    if (!node)
        fuse_reply_err(req, ENOENT);
    return node;
}

struct inode *child_named(struct inode *dir, const char *name, ssize_t *index)
{
    ssize_t i = entries_find(&dir->cur_entries, name);
    if (index)
        *index = i;
    return i < 0 ? NULL : inode_get(dir->cur_entries.items[i].ino);
}

/* A new inode named `name` in `parent`, owned by the caller; NULL with the error replied. */
struct inode *make_node(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
    struct inode *dir = folder(req, parent);
    if (!dir)
        return NULL;
    if (strlen(name) > 255) {
        fuse_reply_err(req, ENAMETOOLONG);
        return NULL;
    }
    if (child_named(dir, name, NULL)) {
        fuse_reply_err(req, EEXIST);
        return NULL;
    }
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    gid_t gid = ctx->gid;
    if (dir->mode & S_ISGID) { /* a set-group-ID folder gives its group, and its bit to folders */
        gid = dir->gid;
        if (S_ISDIR(mode))
            mode |= S_ISGID;
    }
    struct inode *node = inode_new(mode, ctx->uid, gid);
    if (!node) {
        fuse_reply_err(req, ENOMEM);
        return NULL;
    }
    dir_link(dir, name, node);
    trace("make %lu/%s -> %lu (mode %o)", (unsigned long)parent, name, (unsigned long)node->ino, (unsigned)mode);
    return node;
}

void lazy_init(void *userdata, struct fuse_conn_info *conn)
{
    (void)userdata;
    /* Writes come through at once (no writeback cache), and the page cache is kept across opens
     * (every change goes through this kernel), so mmap of SQLite's -shm works. Locks (fcntl, flock)
     * are left to the kernel: every process that locks is on this machine. */
    conn->want &= ~(unsigned)(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_POSIX_LOCKS |
                              FUSE_CAP_FLOCK_LOCKS | FUSE_CAP_ATOMIC_O_TRUNC);
}

void lazy_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    struct stat st;
    fill_attr(node, &st);
    fuse_reply_attr(req, &st, fs.timeout);
}

void lazy_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set, struct fuse_file_info *fi)
{
    (void)fi;
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    if (to_set & FUSE_SET_ATTR_SIZE) {
        if (!is_reg(node)) {
            fuse_reply_err(req, is_dir(node) ? EISDIR : EINVAL);
            return;
        }
        trace("truncate %lu to %lld", (unsigned long)ino, (long long)attr->st_size);
        int err = file_truncate(node, attr->st_size);
        if (err) {
            fuse_reply_err(req, -err);
            return;
        }
    }
    if (to_set & FUSE_SET_ATTR_MODE)
        node->mode = (node->mode & S_IFMT) | (attr->st_mode & 07777);
    if (to_set & FUSE_SET_ATTR_UID)
        node->uid = attr->st_uid;
    if (to_set & FUSE_SET_ATTR_GID)
        node->gid = attr->st_gid;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (to_set & FUSE_SET_ATTR_ATIME_NOW)
        node->atime = now;
    else if (to_set & FUSE_SET_ATTR_ATIME)
        node->atime = attr->st_atim;
    if (to_set & FUSE_SET_ATTR_MTIME_NOW)
        node->mtime = now;
    else if (to_set & FUSE_SET_ATTR_MTIME)
        node->mtime = attr->st_mtim;
    node->ctime = (to_set & FUSE_SET_ATTR_CTIME) ? attr->st_ctim : now;
    struct stat st;
    fill_attr(node, &st);
    fuse_reply_attr(req, &st, fs.timeout);
}

void lazy_statfs(fuse_req_t req, fuse_ino_t ino)
{
    (void)ino;
    struct statvfs sv;
    memset(&sv, 0, sizeof sv);
    sv.f_bsize = sv.f_frsize = LAZY_PAGE;
    sv.f_blocks = 1ULL << 26; /* 256 GiB */
    uint64_t used = (fs.bytes_used + LAZY_PAGE - 1) / LAZY_PAGE;
    sv.f_bfree = sv.f_bavail = sv.f_blocks > used ? sv.f_blocks - used : 0;
    sv.f_files = 1ULL << 24;
    sv.f_ffree = sv.f_favail = sv.f_files - fs.ninodes;
    sv.f_namemax = 255;
    fuse_reply_statfs(req, &sv);
}

const struct fuse_lowlevel_ops lazy_ops = {
    .init = lazy_init,
    .lookup = lazy_lookup,
    .forget = lazy_forget,
    .forget_multi = lazy_forget_multi,
    .getattr = lazy_getattr,
    .setattr = lazy_setattr,
    .readlink = lazy_readlink,
    .mknod = lazy_mknod,
    .mkdir = lazy_mkdir,
    .symlink = lazy_symlink,
    .unlink = lazy_unlink,
    .rmdir = lazy_rmdir,
    .rename = lazy_rename,
    .link = lazy_link,
    .open = lazy_open,
    .create = lazy_create,
    .read = lazy_read,
    .write = lazy_write,
    .flush = lazy_flush,
    .release = lazy_release,
    .fsync = lazy_fsync,
    .opendir = lazy_opendir,
    .readdir = lazy_readdir,
    .releasedir = lazy_releasedir,
    .fsyncdir = lazy_fsyncdir,
    .statfs = lazy_statfs,
    .fallocate = lazy_fallocate,
};

