/* The power cut: what it drops, and what it keeps of each file (its durable bytes, and with --torn
 * part of its writes since the last fsync, chosen by the seed). */
#include "lazyfs.h"

#include <stdlib.h>
#include <string.h>

uint64_t rng_next(void)
{
    /* splitmix64: one seed gives one sequence, so a printed seed replays a cut. */
    uint64_t z = (fs.rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* What a power cut now would drop: files with unsynced data, their bytes, directory entries. */
void count_unsynced(unsigned *files, uint64_t *bytes, unsigned *entries)
{
    *files = 0;
    *bytes = 0;
    *entries = 0;
    for (size_t ino = 0; ino < fs.ninodes; ino++) {
        struct inode *node = fs.inodes[ino];
        if (!node)
            continue;
        if (is_reg(node) && node->unsynced) {
            (*files)++;
            *bytes += node->unsynced_bytes;
        }
        if (!is_dir(node))
            continue;
        for (size_t i = 0; i < node->cur_entries.count; i++) {
            ssize_t j = entries_find(&node->dur_entries, node->cur_entries.items[i].name);
            if (j < 0 || node->dur_entries.items[j].ino != node->cur_entries.items[i].ino)
                (*entries)++;
        }
        for (size_t i = 0; i < node->dur_entries.count; i++)
            if (entries_find(&node->cur_entries, node->dur_entries.items[i].name) < 0)
                (*entries)++;
    }
}

static void apply_piece(struct bytes *b, off_t off, const char *data, size_t len)
{
    size_t end = (size_t)off + len;
    if (end > b->size) {
        if (bytes_reserve(b, end) != 0)
            abort();
        memset(b->data + b->size, 0, end - b->size);
        b->size = end;
    }
    memcpy(b->data + off, data, len);
}

static void apply_truncation(struct bytes *b, size_t size)
{
    if (size > b->size) {
        if (bytes_reserve(b, size) != 0)
            abort();
        memset(b->data + b->size, 0, size - b->size);
    }
    b->size = size;
}

struct bytes file_after_cut(struct inode *node, uint64_t *kept)
{
    struct bytes out = { 0 };
    if (bytes_reserve(&out, node->dur.size) != 0)
        abort();
    if (node->dur.size)
        memcpy(out.data, node->dur.data, node->dur.size);
    out.size = node->dur.size;
    if (fs.torn == TORN_NONE || node->nlog == 0)
        return out;

    /* Units: each truncation, and each write cut at page boundaries. */
    size_t units = 0;
    for (size_t i = 0; i < node->nlog; i++) {
        struct logop *op = &node->log[i];
        units += op->data ? ((size_t)op->off + op->len - 1) / LAZY_PAGE - (size_t)op->off / LAZY_PAGE + 1 : 1;
    }
    size_t prefix = fs.torn == TORN_PREFIX ? (size_t)(rng_next() % (units + 1)) : units;
    size_t unit = 0;
    for (size_t i = 0; i < node->nlog && unit < prefix; i++) {
        struct logop *op = &node->log[i];
        if (!op->data) {
            if (fs.torn == TORN_PREFIX || (rng_next() & 1))
                apply_truncation(&out, (size_t)op->off);
            unit++;
            continue;
        }
        size_t pos = (size_t)op->off, end = (size_t)op->off + op->len;
        while (pos < end && unit < prefix) {
            size_t stop = (pos / LAZY_PAGE + 1) * LAZY_PAGE;
            if (stop > end)
                stop = end;
            if (fs.torn == TORN_PREFIX || (rng_next() & 1)) {
                apply_piece(&out, (off_t)pos, op->data + (pos - (size_t)op->off), stop - pos);
                *kept += stop - pos;
            }
            pos = stop;
            unit++;
        }
    }
    return out;
}
