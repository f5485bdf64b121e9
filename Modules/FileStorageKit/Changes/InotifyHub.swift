import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The process's one inotify descriptor and the thread that reads it (Linux only).
final class InotifyHub: Sendable {
    #if os(Linux)
    static let shared: InotifyHub? = InotifyHub()
    #else
    static let shared: InotifyHub? = nil
    #endif

    private struct Watch {
        var folder: String
        var files: [String: [ChangeCounter]]
    }

    private let fd: Int32
    /// How many times the kernel's event queue overflowed (every monitored file then counts as changed,
    /// and no announced rename can be matched), counted as soon as the thread reads the overflow.
    let overflows = Atomic<Int>(0)
    /// The overflows whose consequences are done (every counter bumped, every announcement forgotten),
    /// counted after them. The thread can stop between reading an overflow and acting on it, so a test
    /// that asks "did an overflow touch my counter while I looked?" compares this count taken before
    /// with `overflows` taken after (`overflowMark()`, `overflowed(since:)`); `overflows` alone would
    /// miss an overflow read before the first look and acted on after it.
    private let overflowsHandled = Atomic<Int>(0)

    /// What `overflowed(since:)` compares against: take it before the window to watch.
    func overflowMark() -> Int { overflowsHandled.load(ordering: .acquiring) }

    /// Whether an overflow may have bumped a counter or dropped an announcement since `mark` was taken.
    func overflowed(since mark: Int) -> Bool { overflows.load(ordering: .acquiring) != mark }
    /// Watch descriptor → the folder and the counters of the files watched in it.
    private let watches = Mutex<[Int32: Watch]>([:])

    /// A document's own renames, so their events move its token without counting as external changes
    /// (`ChangeCounter.bumpOwn`): temporary file names a write is about to rename (→ the writer's
    /// counter), then the cookies of their `IN_MOVED_FROM` events (→ the same counter), which the
    /// `IN_MOVED_TO` onto the file carries too. Anything not matched counts as an external change.
    private struct OwnRenames {
        var pending = Recent<String>()
        var cookies = Recent<UInt32>()
    }

    /// Announcements in arrival order, bounded: past `limit` the oldest goes first. An entry is left
    /// behind only when its event never comes (a folder removed before it was read), so the oldest
    /// are the stale ones, and a write announced a moment ago keeps its entry however busy the
    /// process is (dropping everything at the limit turned other documents' own writes external).
    struct Recent<Key: Hashable> {
        static var limit: Int { 4096 }
        private var entries: [Key: (counter: ChangeCounter, stamp: UInt64)] = [:]
        /// Keys in arrival order from `head` on, with entries already removed among them.
        private(set) var order: [(key: Key, stamp: UInt64)] = []
        private var head = 0
        private var stamp: UInt64 = 0

        var count: Int { entries.count }

        mutating func insert(_ counter: ChangeCounter, for key: Key) {
            stamp &+= 1
            entries[key] = (counter, stamp)
            order.append((key, stamp))
            while entries.count > Self.limit, head < order.count {
                let oldest = order[head]
                head += 1
                if entries[oldest.key]?.stamp == oldest.stamp { entries[oldest.key] = nil }
            }
            // Matched entries leave `entries` but not `order`: past twice the limit, `order` keeps
            // only what is still held (at most `limit`), so it never grows with the writes.
            if order.count - head > 2 * Self.limit {
                order = order[head...].filter { entries[$0.key]?.stamp == $0.stamp }
                head = 0
            }
        }

        mutating func remove(_ key: Key) -> ChangeCounter? {
            entries.removeValue(forKey: key)?.counter
        }
    }
    private let ownRenames = Mutex(OwnRenames())

    private init?() {
        #if os(Linux)
        fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let thread = Thread { [self] in
            ThreadName.set("fsk-inotify")
            readLoop()
        }
        thread.start()
        #else
        return nil
        #endif
    }

    /// Starts counting changes to `url`; `nil` if its folder cannot be watched (use the fallback).
    func watch(_ url: URL) -> ChangeCounter? {
        #if os(Linux)
        let folder = url.deletingLastPathComponent().path
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
        let wd = inotify_add_watch(fd, folder, mask)
        guard wd >= 0 else { return nil }
        let counter = ChangeCounter()
        watches.withLock { table in
            var watch = table[wd] ?? Watch(folder: folder, files: [:])
            watch.files[url.lastPathComponent, default: []].append(counter)
            table[wd] = watch
        }
        return counter
        #else
        return nil
        #endif
    }

    func unwatch(_ url: URL, _ counter: ChangeCounter) {
        watches.withLock { table in
            for (wd, var watch) in table {
                guard var list = watch.files[url.lastPathComponent] else { continue }
                list.removeAll { $0 === counter }
                watch.files[url.lastPathComponent] = list.isEmpty ? nil : list
                // The kernel watch stays: another monitor may add the same folder again soon, and
                // inotify_add_watch would return the same descriptor.
                table[wd] = watch
            }
        }
    }

    /// Tells the hub that `counter`'s document is about to rename its temporary file `temporaryName`
    /// onto the file: the rename's event is then the document's own (`bumpOwn`).
    func expectOwnRename(named temporaryName: String, by counter: ChangeCounter) {
        ownRenames.withLock { $0.pending.insert(counter, for: temporaryName) }
    }

    /// Withdraws `expectOwnRename` after a rename that failed.
    func forgetOwnRename(named temporaryName: String) {
        _ = ownRenames.withLock { $0.pending.remove(temporaryName) }
    }

    #if os(Linux)
    private func readLoop() {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, size)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            var offset = 0
            var touched: [(wd: Int32, name: String?, mask: UInt32, cookie: UInt32)] = []
            while offset + MemoryLayout<inotify_event>.size <= n {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameLength = Int(event.len)
                var name: String?
                if nameLength > 0 {
                    let start = buffer.advanced(by: offset + MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self)
                    name = String(cString: start)
                }
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    overflows.add(1, ordering: .releasing)
                    touched.append((-1, nil, event.mask, 0))
                } else if event.mask & UInt32(IN_IGNORED) != 0 {
                    touched.append((-2 - event.wd, nil, event.mask, 0))
                } else {
                    touched.append((event.wd, name, event.mask, event.cookie))
                }
                offset += MemoryLayout<inotify_event>.size + nameLength
            }
            watches.withLock { table in
                for (wd, name, mask, cookie) in touched {
                    if wd == -1 {
                        // Events were lost: every file may have changed, and no rename can be matched.
                        ownRenames.withLock { $0 = OwnRenames() }
                        for watch in table.values { for list in watch.files.values { list.forEach { $0.bump() } } }
                        overflowsHandled.add(1, ordering: .releasing)
                    } else if wd <= -2 {
                        // The watch is gone (its folder was removed): its monitors switch to polling.
                        let dropped = -2 - wd
                        if let watch = table[dropped] {
                            for list in watch.files.values {
                                list.forEach { $0.lost.store(true, ordering: .releasing); $0.bump() }
                            }
                        }
                        table[dropped] = nil
                    } else if let name {
                        let own = ownRename(name: name, mask: mask, cookie: cookie)
                        let closedAfterWrite = mask & UInt32(IN_CLOSE_WRITE) != 0
                        table[wd]?.files[name]?.forEach { counter in
                            if closedAfterWrite { counter.closeWrites.add(1, ordering: .releasing) }
                            counter === own ? counter.bumpOwn() : counter.bump()
                        }
                    }
                }
            }
        }
    }

    /// Matches the two events of a rename the hub was told of: the `IN_MOVED_FROM` of the temporary
    /// name records its cookie; the `IN_MOVED_TO` with that cookie returns the writer's counter.
    private func ownRename(name: String, mask: UInt32, cookie: UInt32) -> ChangeCounter? {
        if mask & UInt32(IN_MOVED_FROM) != 0 {
            ownRenames.withLock { own in
                guard let counter = own.pending.remove(name) else { return }
                own.cookies.insert(counter, for: cookie)
            }
            return nil
        }
        guard mask & UInt32(IN_MOVED_TO) != 0 else { return nil }
        return ownRenames.withLock { $0.cookies.remove(cookie) }
    }
    #endif
}
