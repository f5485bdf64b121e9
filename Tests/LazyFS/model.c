/* The in-memory model: inodes, directory entries, file data, and what fsync makes durable. */
#include "lazyfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct lazyfs fs;

bool is_dir(const struct inode *node) { return S_ISDIR(node->mode); }
bool is_reg(const struct inode *node) { return S_ISREG(node->mode); }
bool is_lnk(const struct inode *node) { return S_ISLNK(node->mode); }

struct inode *inode_get(uint64_t ino)
{
    return ino < fs.ninodes ? fs.inodes[ino] : NULL;
}

void inode_touch(struct inode *node, bool modified)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    node->ctime = now;
    if (modified)
        node->mtime = now;
}

struct inode *inode_new(mode_t mode, uid_t uid, gid_t gid)
{
    if (fs.ninodes == 0)
        fs.ninodes = FUSE_ROOT_ID; /* the first inode made is the root */
    static size_t cap;
    size_t ino = fs.ninodes;
    if (ino >= cap) {
        size_t grown_cap = cap ? cap * 2 : 64;
        struct inode **grown = realloc(fs.inodes, grown_cap * sizeof *grown);
        if (!grown)
            return NULL;
        fs.inodes = grown;
        cap = grown_cap;
    }
    struct inode *node = calloc(1, sizeof *node);
    if (!node)
        return NULL;
    node->ino = ino;
    node->mode = mode;
    node->uid = uid;
    node->gid = gid;
    clock_gettime(CLOCK_REALTIME, &node->mtime);
    node->atime = node->ctime = node->mtime;
    node->parent = ino;
    fs.inodes[ino] = node;
    fs.ninodes = ino + 1; /* numbers are never reused, so a generation number is not needed */
    return node;
}

static void entries_release(struct entries *list, bool durable)
{
    struct entries old = *list;
    memset(list, 0, sizeof *list);
    for (size_t i = 0; i < old.count; i++) {
        struct inode *child = inode_get(old.items[i].ino);
        if (child) {
            if (durable)
                child->dur_links--;
            else
                child->cur_links--;
            inode_maybe_free(child);
        }
        free(old.items[i].name);
    }
    free(old.items);
}

static void log_clear(struct inode *node)
{
    for (size_t i = 0; i < node->nlog; i++)
        free(node->log[i].data);
    free(node->log);
    node->log = NULL;
    node->nlog = node->caplog = 0;
}

void inode_maybe_free(struct inode *node)
{
    if (node->ino == FUSE_ROOT_ID || node->nlookup || node->opens || node->cur_links || node->dur_links)
        return;
    fs.inodes[node->ino] = NULL;
    entries_release(&node->cur_entries, false);
    entries_release(&node->dur_entries, true);
    fs.bytes_used -= node->cur.size;
    free(node->cur.data);
    free(node->dur.data);
    free(node->dirty);
    log_clear(node);
    free(node->target);
    free(node->image_path);
    free(node);
}

ssize_t entries_find(const struct entries *list, const char *name)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i].name, name) == 0)
            return (ssize_t)i;
    return -1;
}

void entries_add(struct entries *list, const char *name, uint64_t ino)
{
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        struct entry *grown = realloc(list->items, cap * sizeof *grown);
        if (!grown)
            abort(); /* a test file system out of memory has nothing sensible left to do */
        list->items = grown;
        list->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        abort();
    list->items[list->count++] = (struct entry){ copy, ino };
}

void entries_remove_at(struct entries *list, size_t index)
{
    free(list->items[index].name);
    list->items[index] = list->items[--list->count];
}

void dir_link(struct inode *dir, const char *name, struct inode *child)
{
    entries_add(&dir->cur_entries, name, child->ino);
    child->cur_links++;
    if (is_dir(child))
        child->parent = dir->ino;
    inode_touch(dir, true);
}

void dir_unlink_at(struct inode *dir, size_t index)
{
    struct inode *child = inode_get(dir->cur_entries.items[index].ino);
    entries_remove_at(&dir->cur_entries, index);
    inode_touch(dir, true);
    if (child) {
        child->cur_links--;
        inode_touch(child, false);
        inode_maybe_free(child);
    }
}

unsigned dir_subdirs(const struct inode *dir)
{
    unsigned count = 0;
    for (size_t i = 0; i < dir->cur_entries.count; i++) {
        struct inode *child = inode_get(dir->cur_entries.items[i].ino);
        if (child && is_dir(child))
            count++;
    }
    return count;
}

/* --- file data --- */

int bytes_reserve(struct bytes *b, size_t size)
{
    if (size <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < size)
        cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown)
        return -ENOMEM;
    b->data = grown;
    b->cap = cap;
    return 0;
}

static void mark_dirty(struct inode *node, size_t off, size_t len)
{
    if (len == 0)
        return;
    size_t first = off / LAZY_PAGE, last = (off + len - 1) / LAZY_PAGE;
    size_t words = last / 64 + 1;
    if (words > node->dirty_words) {
        size_t cap = node->dirty_words ? node->dirty_words : 4;
        while (cap < words)
            cap *= 2;
        uint64_t *grown = realloc(node->dirty, cap * sizeof *grown);
        if (!grown)
            abort();
        memset(grown + node->dirty_words, 0, (cap - node->dirty_words) * sizeof *grown);
        node->dirty = grown;
        node->dirty_words = cap;
    }
    for (size_t page = first; page <= last; page++)
        node->dirty[page / 64] |= 1ULL << (page % 64);
}

static void log_append(struct inode *node, off_t off, const char *buf, size_t len)
{
    if (!fs.log_writes)
        return;
    if (node->nlog == node->caplog) {
        size_t cap = node->caplog ? node->caplog * 2 : 8;
        struct logop *grown = realloc(node->log, cap * sizeof *grown);
        if (!grown)
            abort();
        node->log = grown;
        node->caplog = cap;
    }
    char *copy = NULL;
    if (buf) {
        copy = malloc(len);
        if (!copy)
            abort();
        memcpy(copy, buf, len);
    }
    node->log[node->nlog++] = (struct logop){ off, buf ? len : 0, copy };
}

/* Sets the current size; bytes that appear are zeros and dirty (so fsync copies them). */
static int resize(struct inode *node, size_t size)
{
    size_t old = node->cur.size;
    if (size > old) {
        int err = bytes_reserve(&node->cur, size);
        if (err)
            return err;
        memset(node->cur.data + old, 0, size - old);
        mark_dirty(node, old, size - old);
        fs.bytes_used += size - old;
    } else {
        fs.bytes_used -= old - size;
    }
    node->cur.size = size;
    return 0;
}

int file_write(struct inode *node, off_t off, const char *buf, size_t len)
{
    if (len == 0)
        return 0;
    size_t end = (size_t)off + len;
    if (end > node->cur.size) {
        int err = resize(node, end);
        if (err)
            return err;
    }
    memcpy(node->cur.data + off, buf, len);
    mark_dirty(node, (size_t)off, len);
    log_append(node, off, buf, len);
    node->unsynced = true;
    node->unsynced_bytes += len;
    inode_touch(node, true);
    return 0;
}

int file_truncate(struct inode *node, off_t size)
{
    if ((size_t)size == node->cur.size)
        return 0;
    size_t old = node->cur.size;
    int err = resize(node, (size_t)size);
    if (err)
        return err;
    log_append(node, size, NULL, 0);
    node->unsynced = true;
    node->unsynced_bytes += (size_t)size > old ? (size_t)size - old : old - (size_t)size;
    inode_touch(node, true);
    return 0;
}

int file_zero(struct inode *node, off_t off, off_t len)
{
    if ((size_t)off >= node->cur.size)
        return 0;
    if ((size_t)(off + len) > node->cur.size)
        len = (off_t)(node->cur.size - (size_t)off);
    char *zeros = calloc(1, (size_t)len);
    if (!zeros)
        return -ENOMEM;
    int err = file_write(node, off, zeros, (size_t)len);
    free(zeros);
    return err;
}

void file_sync(struct inode *node)
{
    if (!node->unsynced)
        return;
    size_t size = node->cur.size;
    if (bytes_reserve(&node->dur, size) != 0)
        abort();
    /* Only pages changed since the last fsync differ; any byte past the old durable size was
     * written or zeroed when the file grew there, so its page is dirty too. */
    for (size_t word = 0; word < node->dirty_words; word++) {
        uint64_t bits = node->dirty[word];
        while (bits) {
            size_t page = word * 64 + (size_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            size_t start = page * LAZY_PAGE;
            if (start >= size)
                continue;
            size_t n = size - start < LAZY_PAGE ? size - start : LAZY_PAGE;
            memcpy(node->dur.data + start, node->cur.data + start, n);
        }
    }
    node->dur.size = size;
    memset(node->dirty, 0, node->dirty_words * sizeof *node->dirty);
    log_clear(node);
    node->unsynced = false;
    node->unsynced_bytes = 0;
}

void dir_sync(struct inode *dir)
{
    struct entries copy = { 0 };
    for (size_t i = 0; i < dir->cur_entries.count; i++) {
        entries_add(&copy, dir->cur_entries.items[i].name, dir->cur_entries.items[i].ino);
        inode_get(dir->cur_entries.items[i].ino)->dur_links++;
    }
    /* Release the old durable entries after counting the new ones, so nothing named by both is freed. */
    struct entries old = dir->dur_entries;
    dir->dur_entries = copy;
    entries_release(&old, true);
}
