/* The FUSE operations on names: lookups, creating, removing, renaming and linking entries, listings,
 * and a folder's fsync (which makes its entries durable). */
#include "ops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

void lazy_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct inode *dir = folder(req, parent);
    if (!dir)
        return;
    struct inode *node;
    if (strcmp(name, ".") == 0)
        node = dir;
    else if (strcmp(name, "..") == 0)
        node = inode_get(dir->parent);
    else
        node = child_named(dir, name, NULL);
    trace("lookup %lu/%s -> %lu", (unsigned long)parent, name, node ? (unsigned long)node->ino : 0UL);
    if (!node) {
        /* A negative entry the kernel may cache: every create goes through it and clears it. */
        struct fuse_entry_param e;
        memset(&e, 0, sizeof e);
        e.entry_timeout = fs.timeout;
        fuse_reply_entry(req, &e);
        return;
    }
    reply_entry(req, node);
}

static void forget_one(fuse_ino_t ino, uint64_t nlookup)
{
    struct inode *node = inode_get(ino);
    if (!node)
        return;
    node->nlookup = node->nlookup > nlookup ? node->nlookup - nlookup : 0;
    trace("forget %lu by %lu", (unsigned long)ino, (unsigned long)nlookup);
    inode_maybe_free(node);
}

void lazy_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    forget_one(ino, nlookup);
    fuse_reply_none(req);
}

void lazy_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
    for (size_t i = 0; i < count; i++)
        forget_one(forgets[i].ino, forgets[i].nlookup);
    fuse_reply_none(req);
}

void lazy_readlink(fuse_req_t req, fuse_ino_t ino)
{
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    if (!is_lnk(node)) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    fuse_reply_readlink(req, node->target);
}

void lazy_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
    (void)rdev;
    if (!S_ISREG(mode)) { /* FIFOs, sockets and devices are not modelled */
        fuse_reply_err(req, EPERM);
        return;
    }
    struct inode *node = make_node(req, parent, name, mode);
    if (node)
        reply_entry(req, node);
}

void lazy_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
    struct inode *node = make_node(req, parent, name, S_IFDIR | (mode & 07777));
    if (node)
        reply_entry(req, node);
}

void lazy_symlink(fuse_req_t req, const char *target, fuse_ino_t parent, const char *name)
{
    struct inode *node = make_node(req, parent, name, S_IFLNK | 0777);
    if (!node)
        return;
    node->target = strdup(target);
    reply_entry(req, node);
}

static void remove_entry(fuse_req_t req, fuse_ino_t parent, const char *name, bool want_dir)
{
    struct inode *dir = folder(req, parent);
    if (!dir)
        return;
    ssize_t index;
    struct inode *node = child_named(dir, name, &index);
    if (!node) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    if (want_dir && !is_dir(node)) {
        fuse_reply_err(req, ENOTDIR);
        return;
    }
    if (!want_dir && is_dir(node)) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    if (want_dir && node->cur_entries.count) {
        fuse_reply_err(req, ENOTEMPTY);
        return;
    }
    trace("%s %lu/%s (%lu)", want_dir ? "rmdir" : "unlink", (unsigned long)parent, name, (unsigned long)node->ino);
    dir_unlink_at(dir, (size_t)index);
    fuse_reply_err(req, 0);
}

void lazy_unlink(fuse_req_t req, fuse_ino_t parent, const char *name) { remove_entry(req, parent, name, false); }
void lazy_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name) { remove_entry(req, parent, name, true); }

void lazy_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
                        const char *newname, unsigned int flags)
{
    struct inode *from = folder(req, parent);
    if (!from)
        return;
    struct inode *to = folder(req, newparent);
    if (!to)
        return;
    if (flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE)) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    if (strlen(newname) > 255) {
        fuse_reply_err(req, ENAMETOOLONG);
        return;
    }
    ssize_t from_index, to_index;
    struct inode *node = child_named(from, name, &from_index);
    struct inode *target = child_named(to, newname, &to_index);
    trace("rename %lu/%s (%lu) -> %lu/%s (%lu), flags %u", (unsigned long)parent, name,
          node ? (unsigned long)node->ino : 0UL, (unsigned long)newparent, newname,
          target ? (unsigned long)target->ino : 0UL, flags);
    if (!node) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    if (flags & RENAME_EXCHANGE) {
        if (!target) {
            fuse_reply_err(req, ENOENT);
            return;
        }
        from->cur_entries.items[from_index].ino = target->ino;
        to->cur_entries.items[to_index].ino = node->ino;
        if (is_dir(node))
            node->parent = to->ino;
        if (is_dir(target))
            target->parent = from->ino;
        inode_touch(from, true);
        inode_touch(to, true);
        inode_touch(node, false);
        inode_touch(target, false);
        fuse_reply_err(req, 0);
        return;
    }
    if (target) {
        if (flags & RENAME_NOREPLACE) {
            fuse_reply_err(req, EEXIST);
            return;
        }
        if (target == node) { /* two names of one file: POSIX says do nothing */
            fuse_reply_err(req, 0);
            return;
        }
        if (is_dir(node) && !is_dir(target)) {
            fuse_reply_err(req, ENOTDIR);
            return;
        }
        if (!is_dir(node) && is_dir(target)) {
            fuse_reply_err(req, EISDIR);
            return;
        }
        if (is_dir(target) && target->cur_entries.count) {
            fuse_reply_err(req, ENOTEMPTY);
            return;
        }
    }
    /* Name it at the new place before removing the old name, so its link count never drops to 0. */
    node->cur_links++;
    if (target) {
        dir_unlink_at(to, (size_t)to_index);
        if (from == to)
            from_index = entries_find(&from->cur_entries, name); /* the removal may have moved it */
    }
    dir_unlink_at(from, (size_t)from_index);
    node->cur_links--;
    dir_link(to, newname, node);
    inode_touch(node, false);
    fuse_reply_err(req, 0);
}

void lazy_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
    struct inode *node = node_or_reply(req, ino);
    if (!node)
        return;
    struct inode *dir = folder(req, newparent);
    if (!dir)
        return;
    if (is_dir(node)) {
        fuse_reply_err(req, EPERM);
        return;
    }
    if (child_named(dir, newname, NULL)) {
        fuse_reply_err(req, EEXIST);
        return;
    }
    trace("link %lu -> %lu/%s", (unsigned long)ino, (unsigned long)newparent, newname);
    dir_link(dir, newname, node);
    inode_touch(node, false);
    reply_entry(req, node);
}

struct dir_snapshot {
    size_t count;
    struct { char *name; uint64_t ino; mode_t mode; } items[];
};

void lazy_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct inode *dir = folder(req, ino);
    if (!dir)
        return;
    /* A listing is read in pieces by offset: it is taken whole here so the offsets stay stable. */
    size_t count = dir->cur_entries.count + 2;
    struct dir_snapshot *snap = malloc(sizeof *snap + count * sizeof snap->items[0]);
    if (!snap) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    snap->count = count;
    snap->items[0].name = strdup(".");
    snap->items[0].ino = dir->ino;
    snap->items[0].mode = S_IFDIR;
    snap->items[1].name = strdup("..");
    snap->items[1].ino = dir->parent;
    snap->items[1].mode = S_IFDIR;
    for (size_t i = 0; i < dir->cur_entries.count; i++) {
        struct inode *child = inode_get(dir->cur_entries.items[i].ino);
        snap->items[i + 2].name = strdup(dir->cur_entries.items[i].name);
        snap->items[i + 2].ino = child->ino;
        snap->items[i + 2].mode = child->mode & S_IFMT;
    }
    fi->fh = (uint64_t)(uintptr_t)snap;
    fuse_reply_open(req, fi);
}

void lazy_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)ino;
    struct dir_snapshot *snap = (struct dir_snapshot *)(uintptr_t)fi->fh;
    char *buf = malloc(size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    size_t used = 0;
    for (size_t i = (size_t)off; i < snap->count; i++) {
        struct stat st;
        memset(&st, 0, sizeof st);
        st.st_ino = snap->items[i].ino;
        st.st_mode = snap->items[i].mode;
        size_t need = fuse_add_direntry(req, buf + used, size - used, snap->items[i].name, &st, (off_t)(i + 1));
        if (need > size - used)
            break;
        used += need;
    }
    fuse_reply_buf(req, buf, used);
    free(buf);
}

void lazy_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    struct dir_snapshot *snap = (struct dir_snapshot *)(uintptr_t)fi->fh;
    for (size_t i = 0; i < snap->count; i++)
        free(snap->items[i].name);
    free(snap);
    fuse_reply_err(req, 0);
}

void lazy_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    (void)datasync;
    (void)fi;
    struct inode *dir = folder(req, ino);
    if (!dir)
        return;
    trace("fsyncdir %lu", (unsigned long)ino);
    dir_sync(dir);
    fuse_reply_err(req, 0);
}

