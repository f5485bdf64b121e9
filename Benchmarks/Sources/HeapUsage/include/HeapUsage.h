#ifndef HEAP_USAGE_H
#define HEAP_USAGE_H
#include <stddef.h>

/// Bytes the C heap has handed out and not taken back (glibc's mallinfo2: in-use chunks plus mmapped
/// blocks); 0 where that is not available. For "memory held per row" figures in benchmarks.
size_t heap_bytes_in_use(void);

#endif
