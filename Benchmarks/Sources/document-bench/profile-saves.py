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
    ('identity map: taking in the committed records', ['IdentityMapC6commit']),
    ('identity map: sweeps (rebuilt without dead entries as it grows)', ['IdentityMapC5sweep']),
    ('identity map: base-revision lookup per save', ['IdentityMapC8revision']),
    ('revision: SHA-256 and hex text', ['8RevisionO4next']),
    ('canonical JSON text', ['CanonicalJSON']),
    ('SQLITE', ['sqlite3', 'pwrite', 'fsync', 'fdatasync', 'pread']),
    ('statement lookup (the transaction\'s kept statements)', ['WriteContextC9statement']),
    ('binding (PreparedStatement)', ['PreparedStatementV4bind', 'bindUnretained']),
    ('transaction: records (visit, lookups, writes; IdentifierTable)', ['WriteContextC6record', 'WriteContextC5visit',
                                                                        'WriteContextC8revision', 'IdentifierTableV']),
    ('transaction: freeing the context', ['WriteContextCfD', 'WriteContextCfd']),
    ('task-local context lookup', ['TaskLocal', 'currentContext', 'WriteContextC7current']),
    ('identifier hashing (IdentifierKey)', ['IdentifierKeyV']),
    ('kind registry', ['KindRegistry']),
    ("building the JSON body (save(to:)'s dictionary)", ['dictionaryLiteral', 'BenchCircleC4save2to']),
    ('put / insertNew / save(_:json:) / save(_:document:) themselves', ['WriteContextC3put', 'WriteContextC9insertNew',
                                                                       'save_8document', 'save_4json',
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
