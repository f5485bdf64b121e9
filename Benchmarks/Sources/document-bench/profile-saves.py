#!/usr/bin/env python3
"""Where DocumentStore's save time goes: groups `perf` samples of `document-bench --profile-saves N`.

    perf record --call-graph dwarf,32768 -F 400 -o saves.data \
        Benchmarks/.build/release/document-bench --profile-saves 5
    perf script -i saves.data -F tid,ip,sym | Benchmarks/Sources/document-bench/profile-saves.py

Only samples whose stack is inside the save (`saveOurs`, `Persistence.transaction`, the pool's write)
count. Each is charged to the innermost frame that matches a group below, so a `malloc` inside the
canonical JSON writer counts as canonical JSON. Frame-pointer stacks (`perf record -g`) lose the
callers of SQLite's functions; use DWARF unwinding as above.
"""
import collections
import sys

MARKERS = ['saveOurs', 'PersistenceC11transaction', 'DocumentDatabaseC5write', 'SerializedDatabaseC4sync']
# (group, substrings of mangled Swift or C symbol names), tried in order on each frame, innermost first.
GROUPS = [
    ('identity map: sweeps (the map filter-copied each time it doubles)', ['IdentityMapC12sweepIfLarge']),
    ('identity map: recording the written objects after COMMIT', ['IdentityMapC11recordSaved']),
    ('identity map: base-revision lookup per save', ['IdentityMapC8revision']),
    ('revision: SHA-256 and hex text', ['8RevisionO4next']),
    ('canonical JSON text', ['CanonicalJSON']),
    ('SQLITE', ['sqlite3', 'pwrite', 'fsync', 'fdatasync', 'pread']),
    ('statement lookup (WriterStatements)', ['WriterStatements']),
    ('binding through SQLiteStatement', ['SQLiteStatementV']),
    ('transaction: written table (String-keyed dictionary)', ['WriteContextC7Written', 'WriteContextC7written']),
    ('transaction: visited set (Set<String>)', ['Sh8_VariantV6insert', 'WriteContextC7visited']),
    ('transaction: freeing the context (its set and table)', ['WriteContextCfD', 'WriteContextCfd']),
    ('task-local context lookup', ['TaskLocal', 'currentContext']),
    ('kind registry', ['KindRegistry']),
    ("building the JSON body (save(to:)'s dictionary, mapValues)", ['mapValues', 'BenchCircleC4save2to', 'save_4json']),
    ('put / insertNew / save(_:document:) themselves', ['WriteContextC3put', 'WriteContextC9insertNew', 'save_8document',
                                                        'WriteContextC14insertRevision', 'WriteContextC12insertChange']),
    ('Persistence.save(_:) itself', ['PersistenceC4saveyyx']),
]


def group(symbols):
    for symbol in symbols:
        for name, patterns in GROUPS:
            if any(p in symbol for p in patterns):
                if name != 'SQLITE':
                    return name
                if any('WriteContextC' in s for s in symbols):
                    return 'SQLite: the inserts (steps, b-trees, bound-text copies)'
                return 'SQLite: BEGIN and COMMIT (WAL writes, fsync)'
    return 'other: ' + symbols[0][:80]


counts = collections.Counter()
samples = 0
for block in sys.stdin.read().split('\n\n'):
    lines = [line.strip() for line in block.strip().split('\n')[1:] if line.strip()]
    if not lines:
        continue
    samples += 1
    symbols = [line.split(None, 1)[1] if ' ' in line else line for line in lines]
    if any(m in s for s in symbols for m in MARKERS):
        counts[group(symbols)] += 1
total = sum(counts.values())
if total == 0:
    sys.exit('no samples inside the save: was it recorded with --call-graph dwarf?')
print(f'{samples} samples, {total} inside the save')
small = 0
for name, n in counts.most_common():
    if name.startswith('other: ') and n < total * 0.005:
        small += n
        continue
    print(f'{100 * n / total:5.1f}%  {name}')
print(f'{100 * small / total:5.1f}%  other (each under 0.5%)')
