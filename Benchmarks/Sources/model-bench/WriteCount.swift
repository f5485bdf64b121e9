import BenchSupport
import Foundation
import ModelPersistence
#if canImport(Glibc)
import Glibc
#endif

/// Counts the times a file is replaced by a rename in its folder, through inotify (`IN_MOVED_TO`).
///
/// Every durable write (and every `.atomic` write) renames a temporary file over the target, so the
/// count is the number of writes, whoever made them. The kernel queues the event when the rename
/// happens, so reading the queue right after the code under test sees all of its writes.
///
/// The watch asks for `IN_MOVED_FROM` too, though only `IN_MOVED_TO` is counted: inotify merges an
/// event with an identical one still unread at the end of the queue, and with `IN_MOVED_TO` alone
/// (measured on Linux 6.18) ten renames onto the file were read as one event. Each temporary file's
/// own `IN_MOVED_FROM` (a unique name) sits between them, so none is merged.
final class RenameCounter {
    private let fd: Int32
    private let name: String

    /// Watches `file`'s folder; `nil` where inotify is not available.
    init?(file: URL) {
        #if canImport(Glibc)
        name = file.lastPathComponent
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, file.deletingLastPathComponent().path, UInt32(IN_MOVED_TO | IN_MOVED_FROM)) >= 0 else {
            close(fd)
            return nil
        }
        #else
        return nil
        #endif
    }

    deinit { close(fd) }

    /// The renames onto the file since the last call.
    func take() -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return count }   // EAGAIN: the queue is empty
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= n {
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let length = Int(event.len)
                    let nameBytes = raw[(offset + header)..<min(offset + header + length, n)].prefix { $0 != 0 }
                    if event.mask & UInt32(IN_MOVED_TO) != 0 && String(decoding: nameBytes, as: UTF8.self) == name {
                        count += 1
                    }
                    offset += header + length
                }
            }
        }
    }
}

/// Shows that the sets inside one `withBatch` cost one write: counts the renames onto the model's file
/// during one set, ten sets, and a batch, and checks what the file holds afterwards.
///
/// - Returns: The number of failed checks (0 when the batch wrote once and the file is right).
func proveBatchWritesOnce(_ model: BenchProfile, options: Options, counter: Counter) -> Int {
    print("\nHow many writes do sets cost? (renames onto \(BenchProfile._$persistedDocumentName).storage.plist, by inotify)")
    guard let url = model._$persistence.url, let renames = RenameCounter(file: url) else {
        print("  inotify is not available here: not counted")
        return 0
    }
    _ = renames.take()
    model.count = counter.next()
    let one = renames.take()
    for _ in 0..<10 { model.count = counter.next() }
    let ten = renames.take()
    let clock = ContinuousClock()
    let elapsed = clock.measure {
        model.withBatch { model in
            for _ in 0..<options.batch { model.count = counter.next() }
        }
    }
    let batched = renames.take()
    print("  1 set:                                \(one) write(s)")
    print("  10 sets:                              \(ten) write(s)")
    print("  \(options.batch) sets in one withBatch:         \(batched) write(s), in \(String(format: "%.2f", seconds(elapsed) * 1e3)) ms")

    var failures = 0
    if one != 1 || ten != 10 {
        print("  check FAILED: the counter must see 1 write per plain set")
        failures += 1
    }
    if batched != 1 {
        print("  check FAILED: the batch wrote \(batched) times")
        failures += 1
    }
    do {
        let stored = try PropertyListDecoder().decode(ProfileShape.self, from: Data(contentsOf: url))
        var expected = ProfileShape()
        expected.count = counter.value
        if stored != expected {
            print("  check FAILED: the file holds \(stored), expected \(expected)")
            failures += 1
        } else {
            print("  the file holds the batch's last value (\(counter.value)), decoded by PropertyListDecoder")
        }
    } catch {
        print("  check FAILED: the file does not decode: \(error)")
        failures += 1
    }
    print("  verdict: \(options.batch) sets in one batch \(batched == 1 ? "cost one write" : "did NOT cost one write")")
    return failures
}
