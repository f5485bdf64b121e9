/* The FUSE operations on open files: open, create, read, write, close, fsync (which makes the data
 * durable), fallocate. */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>

void lazy_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    if (is_dir(node)) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    fi->keep_cache = 1;
    node->opens++;
    trace("open %lu, flags %o", (unsigned long)ino, (unsigned)fi->flags);
    fuse_reply_open(req, fi);
}

void lazy_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi)
{
    struct inode *dir = folder(req, parent);
    if (!dir)
        return;
    struct inode *node = child_named(dir, name, NULL);
    if (node && (fi->flags & O_EXCL)) {
        fuse_reply_err(req, EEXIST);
        return;
    }
    if (!node) {
        node = make_node(req, parent, name, S_IFREG | (mode & 07777));
        if (!node)
            return;
    } else if (!is_reg(node)) {
        fuse_reply_err(req, is_dir(node) ? EISDIR : EEXIST);
        return;
    }
    fi->keep_cache = 1;
    node->opens++;
    trace("create %lu/%s -> %lu, flags %o", (unsigned long)parent, name, (unsigned long)node->ino, (unsigned)fi->flags);
    struct fuse_entry_param e;
    fill_entry(node, &e);
    fuse_reply_create(req, &e, fi);
}

void lazy_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)fi;
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    trace("read %lu at %lld, %zu of %zu bytes", (unsigned long)ino, (long long)off,
          (size_t)off >= node->cur.size ? 0 : (node->cur.size - (size_t)off < size ? node->cur.size - (size_t)off : size),
          node->cur.size);
    if ((size_t)off >= node->cur.size) {
        fuse_reply_buf(req, NULL, 0);
        return;
    }
    size_t n = node->cur.size - (size_t)off;
    fuse_reply_buf(req, node->cur.data + off, n < size ? n : size);
}

void lazy_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    (void)fi;
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    trace("write %lu at %lld, %zu bytes", (unsigned long)ino, (long long)off, size);
    int err = file_write(node, off, buf, size);
    if (err)
        fuse_reply_err(req, -err);
    else
        fuse_reply_write(req, size);
}

void lazy_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    (void)fi;
    fuse_reply_err(req, 0); /* a close makes nothing durable */
}

void lazy_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;
    struct inode *node = inode_get(ino);
    trace("release %lu", (unsigned long)ino);
    if (node && node->opens) {
        node->opens--;
        inode_maybe_free(node);
    }
    fuse_reply_err(req, 0);
}

void lazy_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    /* fdatasync keeps the data and the size, which is all a file holds here */
    (void)fi;
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    trace("fsync %lu%s", (unsigned long)ino, datasync ? " (data)" : "");
    if (is_reg(node))
        file_sync(node);
    else if (is_dir(node))
        dir_sync(node);
    fuse_reply_err(req, 0);
}

void lazy_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                           struct fuse_file_info *fi)
{
    (void)fi;
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    int err = 0;
    bool keep_size = mode & FALLOC_FL_KEEP_SIZE;
    int kind = mode & ~FALLOC_FL_KEEP_SIZE;
    if (kind == 0 || kind == FALLOC_FL_ZERO_RANGE) {
        if (kind == FALLOC_FL_ZERO_RANGE)
            err = file_zero(node, offset, length);
        if (!err && !keep_size && (size_t)(offset + length) > node->cur.size)
            err = file_truncate(node, offset + length);
    } else if (kind == FALLOC_FL_PUNCH_HOLE && keep_size) {
        err = file_zero(node, offset, length);
    } else {
        err = -EOPNOTSUPP;
    }
    fuse_reply_err(req, -err);
}

