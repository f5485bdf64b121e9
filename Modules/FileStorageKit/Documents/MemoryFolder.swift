import Foundation
import Synchronization

/// A folder that lives in memory: the in-memory twin of a folder on disk, for tests that do not need
/// a real file (as swift-nio's `EmbeddedChannel` stands in for a socket).
///
/// Stores opened on `StorageFolder.memory(folder)` keep their documents here with the semantics they
/// have on disk: an exclusive lock per document (re-entrant by the same rule, timing out the same
/// way), a change token bumped by every write, change listeners told on FileStorageKit's change
/// thread, and a corrupt document moved aside. Two stores opened on the same `MemoryFolder` share
/// their documents as two processes share a folder.
///
/// ```swift
/// let folder = MemoryFolder()
/// let a = DefaultsSuite(suiteName: "app", storage: .memory(folder))
/// let b = DefaultsSuite(suiteName: "app", storage: .memory(folder))
/// try a.set(1, forKey: "n")            // b.integer(forKey: "n") == 1
/// folder.contents(of: "app.plist")     // the bytes a file would hold
/// ```
public final class MemoryFolder: Sendable, CustomStringConvertible {
    private static let count = Atomic<Int>(0)

    /// The folder's name, which stands for its path in URLs and error messages: `/<name>/<file>`.
    public let name: String
    private let files = Mutex<[String: Data]>([:])
    private let counters = Mutex<[String: ChangeCounter]>([:])
    private let locks = Mutex<Set<String>>([])

    /// Creates an empty folder; `name` defaults to `memory-<n>`, unique in the process.
    public init(name: String? = nil) {
        self.name = name ?? "memory-\(Self.count.add(1, ordering: .relaxed).newValue)"
    }

    public var description: String { "MemoryFolder(\(name))" }

    /// The URL that stands for `fileName` in this folder.
    public func url(for fileName: String) -> URL {
        URL(fileURLWithPath: "/\(name)/\(fileName)")
    }

    /// The names of the files in the folder, sorted.
    public var fileNames: [String] { files.withLock { $0.keys.sorted() } }

    /// The bytes of `fileName`, if it exists.
    public func contents(of fileName: String) -> Data? { files.withLock { $0[fileName] } }

    /// Replaces `fileName` with `data` (`nil` removes it), as another process writing the file would:
    /// the change token moves and listeners are told.
    public func setContents(_ data: Data?, of fileName: String) {
        files.withLock { $0[fileName] = data }
        counter(for: fileName).bump()
    }

    func counter(for fileName: String) -> ChangeCounter {
        counters.withLock { table in
            if let existing = table[fileName] { return existing }
            let created = ChangeCounter()
            table[fileName] = created
            return created
        }
    }

    func tryLock(_ fileName: String) -> Bool { locks.withLock { $0.insert(fileName).inserted } }
    func unlock(_ fileName: String) { _ = locks.withLock { $0.remove(fileName) } }

    /// Renames `fileName` to `newName`, as `rename(2)` does.
    func move(_ fileName: String, to newName: String) {
        files.withLock { table in
            table[newName] = table.removeValue(forKey: fileName)
        }
        counter(for: fileName).bump()
        counter(for: newName).bump()
    }
}
