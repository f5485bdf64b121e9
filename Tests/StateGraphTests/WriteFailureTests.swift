import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Testing
import TestSupport

/// A set whose durable write failed (a full disk, a read-only folder, here a file where the suites'
/// folder should be, which fails the same way for root): the node keeps the value in memory and
/// reports the error, and setting that value again once the cause is gone writes it.
@Suite("StateGraph: a set whose write failed")
struct WriteFailureTests {
    /// A size that is not `Equatable`: the node compares it with the suite by its encoding.
    struct Size: Codable {
        var width: Int
    }

    @Test("setting the same value again after a failed write writes it, Equatable or not")
    func theSameSetAgainRetriesTheWrite() throws {
        let temp = try TemporaryFolder(prefix: "graph-write-failure")
        let folder = temp.folder("suites")
        try Data().write(to: folder)   // a file, not a folder: every write of the suite fails
        let (count, size) = GraphStorageLocation.$folder.withValue(folder) {
            (StoredNode(name: "count", backing: .userDefaults(suite: "retry", key: "count"), defaultValue: 0),
             StoredNode(name: "size", backing: .userDefaults(suite: "retry", key: "size"), defaultValue: Size(width: 0)))
        }
        count.wrappedValue = 5
        size.wrappedValue = Size(width: 7)
        #expect(count.storageError?.operation == .write && size.storageError?.operation == .write)
        #expect(count.wrappedValue == 5 && size.wrappedValue.width == 7, "the nodes keep their values in memory")

        try FileManager.default.removeItem(at: folder)
        count.wrappedValue = 5
        size.wrappedValue = Size(width: 7)
        #expect(count.storageError == nil && size.storageError == nil, "the writes succeed now")
        let stored = try storedDictionary(folder.appendingPathComponent("retry.plist"))
        #expect(stored["count"] == .int(5), "the retried set is in the file: \(stored)")
        #expect(stored["size"] == .dictionary(["width": .int(7)]), "the retried set is in the file: \(stored)")
    }
}
