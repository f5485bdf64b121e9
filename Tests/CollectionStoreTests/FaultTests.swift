import CollectionStore
import FileStorageKit
import Foundation
import PlistCodec
import Testing
import TestSupport

/// Issue 5, item 3: a file that cannot be decoded is never overwritten; every operation says why.
@Suite struct FaultTests {
    /// Damaged files: not a property list, a truncated binary one, and a valid one of the wrong shape.
    static func damagedFiles() throws -> [(name: String, bytes: Data)] {
        let good = try PropertyListEncoder().encode([Note(id: 1, title: "kept"), Note(id: 2, title: "also kept")])
        return [
            ("garbage", Data("this is not a property list\n".utf8)),
            ("truncated", good.prefix(good.count - 20)),
            ("wrong shape", try PropertyListEncoder().encode(["a": 1])),
            ("wrong element", try PropertyListEncoder().encode([1, 2, 3])),
            ("empty", Data()),
        ]
    }

    @Test func everyMutationOnADamagedFileFailsAndLeavesItByteForByte() throws {
        for damaged in try Self.damagedFiles() {
            let temp = try TemporaryFolder(prefix: "collection-corrupt")
            let notes = store(Note.self, in: temp)
            try damaged.bytes.write(to: notes.url)
            let mutations: [(String, () throws -> Void)] = [
                ("createItem", { try notes.createItem(Note(id: 3, title: "new")) }),
                ("updateItem(_:at:)", { try notes.updateItem(Note(id: 3, title: "new"), at: 0) }),
                ("deleteItem(at:)", { try notes.deleteItem(at: 0) }),
                ("deleteItem(id:)", { try notes.deleteItem(id: 1) }),
                ("replaceAllItems(with:)", { try notes.replaceAllItems(with: []) }),
                ("deleteAllItems()", { try notes.deleteAllItems() }),
                ("transaction", { try notes.transaction { $0 = [] } }),
                ("loadItems", { _ = try notes.loadItems() }),
                ("containsItem(_:)", { _ = try notes.containsItem(Note(id: 1, title: "kept")) }),
            ]
            for (name, mutation) in mutations {
                let error = failure(mutation)
                if case .propertyListDecodingError(let cause)? = error {
                    let storageError = try #require(cause as? FileStorageError, "\(damaged.name): \(name): \(cause)")
                    #expect(storageError.url == notes.url)
                    if case .corrupt(_, let plistError) = storageError {
                        #expect(plistError.location != .none, "\(damaged.name): \(name): a corrupt file's error says where: \(plistError)")
                    }
                } else {
                    Issue.record("\(damaged.name): \(name) gave \(String(describing: error)), not propertyListDecodingError")
                }
                #expect(try Data(contentsOf: notes.url) == damaged.bytes, "\(damaged.name): \(name) changed the file")
            }
            #expect(try temp.entries() == [".items.plist.lock", "items.plist"], "\(damaged.name): no stray files")
        }
    }

    @Test func aDamagedFileIsReportedByTheProbeProcessAndKept() async throws {
        let temp = try TemporaryFolder(prefix: "collection-corrupt-probe")
        let file = temp.file("items.plist")
        let bytes = Data("bplist00 but then nothing sensible".utf8)
        try bytes.write(to: file)
        let child = try ChildProcess.start(try collectionProbe(), ["create-one", file.path, "1", "1"])
        let end = try await child.waitForExit(deadline: .now + .seconds(180))
        #expect(end == .exited(1), "\(child.error("\(end)"))")
        #expect(child.standardError.contains("cannot decode the items; the file was left unchanged"), "\(child.standardError)")
        #expect(child.standardError.contains(file.path), "the error names the file: \(child.standardError)")
        #expect(try Data(contentsOf: file) == bytes)
    }

    @Test func aFolderThatCannotBeMadeIsAWritingError() throws {
        let temp = try TemporaryFolder(prefix: "collection-fault")
        // A file where the folder should be: the folder cannot be created.
        try Data("x".utf8).write(to: temp.file("blocker"))
        let notes = DataPersistence<Note>(filename: "items.plist", directory: .folder(temp.folder("blocker/sub")))
        let error = failure { try notes.createItem(Note(id: 1, title: "x")) }
        guard case .writingError(let cause)? = error else {
            Issue.record("creating a file under a regular file must be a writingError: \(String(describing: error))")
            return
        }
        #expect(cause is FileStorageError, "\(cause)")
    }
}

/// The `collection-probe` program `ci/test` builds beside the test executable.
func collectionProbe() throws -> URL {
    try ChildProcess.builtProgram("collection-probe")
}
