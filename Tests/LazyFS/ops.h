/* The FUSE operations' shared helpers and handlers: ops.c (attributes, the table), names.c (lookups,
 * directory entries, listings), files.c (open files and their data). */
#ifndef LAZYFS_OPS_H
#define LAZYFS_OPS_H

#include "lazyfs.h"

void fill_attr(const struct inode *node, struct stat *st);
/* Fills node's entry for a reply, counting one more kernel reference to it. */
void fill_entry(struct inode *node, struct fuse_entry_param *e);
/* Replies with node's entry, counting one more kernel reference to it. */
void reply_entry(fuse_req_t req, struct inode *node);
/* The folder `ino`, or NULL with the error replied. */
struct inode *folder(fuse_req_t req, fuse_ino_t ino);
struct inode *node_or_reply(fuse_req_t req, fuse_ino_t ino);
struct inode *child_named(struct inode *dir, const char *name, ssize_t *index);
/* A new inode named `name` in `parent`, owned by the caller; NULL with the error replied. */
struct inode *make_node(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);

void lazy_init(void *userdata, struct fuse_conn_info *conn);
void lazy_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void lazy_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void lazy_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets);
void lazy_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void lazy_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set, struct fuse_file_info *fi);
void lazy_readlink(fuse_req_t req, fuse_ino_t ino);
void lazy_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void lazy_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void lazy_symlink(fuse_req_t req, const char *target, fuse_ino_t parent, const char *name);
void lazy_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void lazy_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void lazy_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent, const char *newname,
                 unsigned int flags);
void lazy_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void lazy_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void lazy_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi);
void lazy_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void lazy_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                struct fuse_file_info *fi);
void lazy_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void lazy_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void lazy_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void lazy_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void lazy_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void lazy_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void lazy_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void lazy_statfs(fuse_req_t req, fuse_ino_t ino);
void lazy_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                    struct fuse_file_info *fi);

#endif
