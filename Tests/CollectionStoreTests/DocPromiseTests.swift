// Black-box tests of the promises in CollectionStore's DocC article (CollectionStore.md), written from the
// article and the public API only. Each test quotes the sentence it checks.
import Foundation
import Testing
import CollectionStore
import FileStorageKit
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

enum DocPromiseCS {
    static func inode(_ url: URL) -> UInt64? { var st = stat(); return lstat(url.path, &st) == 0 ? UInt64(st.st_ino) : nil }
    static func mode(_ url: URL) -> Int? { var st = stat(); return lstat(url.path, &st) == 0 ? Int(st.st_mode) & 0o7777 : nil }
    static func exists(_ url: URL) -> Bool { var st = stat(); return lstat(url.path, &st) == 0 }
    static func bytes(_ url: URL) -> Data? { FileManager.default.contents(atPath: url.path) }
    static func store(_ temp: TemporaryFolder, _ name: String = "items.plist") -> DataPersistence<CollectionProbeItem> {
        DataPersistence<CollectionProbeItem>(filename: name, directory: .folder(temp.url))
    }
    static func item(_ p: Int, _ s: Int) -> CollectionProbeItem { CollectionProbeItem(process: p, sequence: s) }
}

final class DocPromiseChanges: @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [DataPersistenceChange<CollectionProbeItem>] = []
    func append(_ c: DataPersistenceChange<CollectionProbeItem>) { lock.lock(); changes.append(c); lock.unlock() }
    var all: [DataPersistenceChange<CollectionProbeItem>] { lock.lock(); defer { lock.unlock() }; return changes }
}

@Suite struct DocPromiseTests {
    // CollectionStore.md: "folders are created on the first write (mode 0700)" and `loadItems()`: "[] when there is
    // no file yet"
    @Test func foldersAreCreatedOnFirstWriteWith0700() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let folder = temp.folder("a/b")
        let store = DataPersistence<CollectionProbeItem>(filename: "x.plist", directory: .folder(folder))
        #expect(try store.loadItems() == [])
        #expect(!DocPromiseCS.exists(temp.folder("a")), "a load created the folder")
        try store.createItem(DocPromiseCS.item(1, 1))
        #expect(DocPromiseCS.mode(temp.folder("a")) == 0o700)
        #expect(DocPromiseCS.mode(folder) == 0o700)
        #expect(store.url.path == folder.appendingPathComponent("x.plist").path)
    }

    // CollectionStore.md: "a file that cannot be decoded is never overwritten; every operation throws
    // `.propertyListDecodingError` and the file stays byte for byte" — also for another process's writer.
    @Test(arguments: ["garbage", "wrong type"]) func undecodableFileIsNeverOverwritten(kind: String) async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        let bad = kind == "garbage" ? Data("bplist00 not really".utf8)
                                    : try PropertyListEncoder().encode(["just", "strings"])
        FileManager.default.createFile(atPath: store.url.path, contents: bad)
        let a = DocPromiseCS.item(1, 1)
        let operations: [(String, () throws -> Void)] = [
            ("loadItems", { _ = try store.loadItems() }), ("createItem", { try store.createItem(a) }),
            ("containsItem", { _ = try store.containsItem(a) }), ("replaceItem", { _ = try store.replaceItem(a, with: a) }),
            ("deleteAllItems", { try store.deleteAllItems() }), ("replaceAllItems", { try store.replaceAllItems(with: [a]) }),
            ("deleteItem(id:)", { _ = try store.deleteItem(id: a.id) }), ("item(id:)", { _ = try store.item(id: a.id) }),
            ("transaction", { try store.transaction { $0.append(a) } }),
        ]
        for (name, operation) in operations {
            do { try operation(); Issue.record("\(name) did not throw") }
            catch let error as DataPersistenceError {
                if case .propertyListDecodingError(let cause) = error {
                    #expect((cause as? FileStorageError)?.url.path == store.url.path, "\(name): \(cause)")
                } else { Issue.record("\(name) threw \(error)") }
            } catch { Issue.record("\(name) threw \(error)") }
        }
        let child = try ChildProcess.start(try ChildProcess.builtProgram("collection-probe"), ["create-one", store.url.path, "2", "1"])
        #expect(try await child.waitForExit(deadline: .now + .seconds(20)) == .exited(1))
        #expect(DocPromiseCS.bytes(store.url) == bad)
    }

    // CollectionStore.md: "The file is exactly what `PropertyListEncoder().encode(items)` writes (binary), so it opens
    // with Apple's decoder, and a file Apple's encoder wrote opens here."
    @Test func fileIsExactlyPropertyListEncoderOutput() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        let items = (1...3).map { DocPromiseCS.item(4, $0) }
        for item in items { try store.createItem(item) }
        let encoder = PropertyListEncoder(); encoder.outputFormat = .binary
        #expect(DocPromiseCS.bytes(store.url) == (try encoder.encode(items)))
        let apple = items.reversed() + [DocPromiseCS.item(5, 1)]
        try encoder.encode(Array(apple)).write(to: temp.file("apple.plist"))
        #expect(try DocPromiseCS.store(temp, "apple.plist").loadItems() == Array(apple))
    }

    // CollectionStore.md: "every mutation reads the newest file and writes under FileStorageKit's exclusive lock"
    // — two processes and two instances here create at once: no item is lost.
    @Test func processesAndInstancesCreatingAtOnceLoseNothing() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp), other = DocPromiseCS.store(temp)
        _ = try store.loadItems(); _ = try other.loadItems()
        let faults = try ProcessFaults(program: "collection-probe", deadline: .seconds(20))
        async let children = faults.runTogether([["create", store.url.path, "1", "15"], ["create", store.url.path, "2", "15"]])
        for s in 1...15 {
            try await store.async.createItem(DocPromiseCS.item(3, s))
            try await other.async.createItem(DocPromiseCS.item(4, s))
        }
        _ = try await children
        let all = try DocPromiseCS.store(temp).loadItems()
        #expect(all.count == 60)
        #expect(Set(all.map(\.id)).count == 60)
        let intact = all.allSatisfy { $0.isIntact }
        #expect(intact)
    }

    // CollectionStore.md: "`Data.write(options: .atomic)`: no `fsync`, mode reset to 0644 | `DurableFile`: temp file,
    // `fsync`, rename, folder `fsync`" — a mode the user set stays.
    @Test func modeOfExistingFileIsKept() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        try store.createItem(DocPromiseCS.item(1, 1))
        #expect(DocPromiseCS.mode(store.url) == 0o600)
        chmod(store.url.path, 0o640)
        try store.createItem(DocPromiseCS.item(1, 2))
        #expect(DocPromiseCS.mode(store.url) == 0o640)
    }

    // CollectionStore.md: "a crash leaves the old or the new file" — a real process killed while it creates items:
    // every acknowledged item is there and intact, and no temporary file survives the next write.
    @Test func killedCreatorLeavesOldOrNewFileWithEveryAcknowledgedItem() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        let faults = try ProcessFaults(program: "collection-probe", deadline: .seconds(20))
        var next = 1
        try await faults.killAtRandomMoments(label: "doc-promise collection", trials: 5, maxPause: .milliseconds(20),
                                             arguments: { _ in ["create-loop", store.url.path, "1"] }) { kill in
            let items = try store.loadItems()
            let acked = kill.outputLines.compactMap { $0.hasPrefix("acked p1 ") ? Int($0.split(separator: " ")[2]) : nil }
            let sequences = Set(items.map(\.sequence))
            let intact = items.allSatisfy { $0.isIntact }
            #expect(intact, "\(kill)")
            for n in acked { #expect(sequences.contains(n), "acknowledged item \(n) lost: \(kill)") }
            next += 1
            try store.createItem(DocPromiseCS.item(9, next))
            let leftovers = try temp.entries().filter { $0.hasPrefix(".items.plist.tmp-") }
            #expect(leftovers == [], "\(kill)")
        }
    }

    // CollectionStore.md: "Suppose you loaded `[a, b, c]` and another process deleted `a`. [...] it throws
    // `.indexConflict(index: 0, path:)` and writes nothing. [...] If the other process only appended, index 0 still
    // holds `a` and the call goes through; the appended item is kept."
    @Test func indexConflictAfterAnotherProcessChangedTheFile() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        let (a, b, c) = (DocPromiseCS.item(1, 1), DocPromiseCS.item(1, 2), DocPromiseCS.item(1, 3))
        try store.replaceAllItems(with: [a, b, c])
        #expect(try store.loadItems() == [a, b, c])
        // Another process appends: index 0 still holds a.
        let child = try ChildProcess.start(try ChildProcess.builtProgram("collection-probe"), ["create-one", store.url.path, "2", "1"])
        #expect(try await child.waitForExit(deadline: .now + .seconds(20)) == .exited(0))
        #expect(try store.deleteItem(at: 0) == a)
        #expect(try DocPromiseCS.store(temp).loadItems() == [b, c, DocPromiseCS.item(2, 1)])
        // Another instance deletes b (now index 0 for us): our index 1 (c) moved.
        _ = try DocPromiseCS.store(temp).deleteItem(id: b.id)
        let before = DocPromiseCS.bytes(store.url)
        do { try store.updateItem(DocPromiseCS.item(7, 7), at: 1); Issue.record("no conflict") }
        catch { if case .indexConflict(let index, let path) = error { #expect(index == 1); #expect(path == store.url.path) }
                else { Issue.record("threw \(error)") } }
        #expect(DocPromiseCS.bytes(store.url) == before)
        // Ids cannot conflict.
        #expect(try store.deleteItem(id: c.id) == c)
    }

    // CollectionStore.md: "`replaceAllItems(with:)` [...] writes only if the file still holds what you loaded, and
    // otherwise throws `.outOfDate`."
    @Test func replaceAllItemsIsRefusedWhenOutOfDate() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        try store.createItem(DocPromiseCS.item(1, 1))
        _ = try store.loadItems()
        try DocPromiseCS.store(temp).createItem(DocPromiseCS.item(2, 1))
        let before = DocPromiseCS.bytes(store.url)
        do { try store.replaceAllItems(with: []); Issue.record("not refused") }
        catch { if case .outOfDate(let path) = error { #expect(path == store.url.path) } else { Issue.record("threw \(error)") } }
        #expect(DocPromiseCS.bytes(store.url) == before)
        _ = try store.loadItems()
        try store.replaceAllItems(with: [])
        #expect(try DocPromiseCS.store(temp).loadItems() == [])
    }

    // CollectionStore.md: "The body gets the newest items under the lock; what it leaves is written once, and only if
    // it changed. If the body throws, nothing is written."
    @Test func transactionWritesOnceOnlyIfChangedAndNothingOnThrow() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        try store.createItem(DocPromiseCS.item(1, 1))
        try DocPromiseCS.store(temp).createItem(DocPromiseCS.item(2, 1))   // newer than what `store` saw
        let inode = DocPromiseCS.inode(store.url)
        let count = try store.transaction { items in items.count }
        #expect(count == 2)
        #expect(DocPromiseCS.inode(store.url) == inode, "an unchanged transaction wrote")
        struct Stop: Error {}
        #expect(throws: Stop.self) { try store.transaction { items in items.removeAll(); throw Stop() } }
        #expect(DocPromiseCS.inode(store.url) == inode, "a throwing transaction wrote")
        try store.transaction { items in items += (2...50).map { DocPromiseCS.item(1, $0) } }
        #expect(try DocPromiseCS.store(temp).loadItems().count == 51)
    }

    // CollectionStore.md: "`.noContentsAtPath`: the path is a folder." / "`.invalidFilename`: the filename was not one
    // path component; the initializer does not throw, so every operation reports it." / `.indexOutOfRange`
    @Test func folderPathInvalidFilenameAndIndexOutOfRange() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        try FileManager.default.createDirectory(at: temp.folder("dir.plist"), withIntermediateDirectories: true)
        do { _ = try DocPromiseCS.store(temp, "dir.plist").loadItems(); Issue.record("no error") }
        catch { if case .noContentsAtPath = error {} else { Issue.record("folder: \(error)") } }
        let bad = DocPromiseCS.store(temp, "a/b.plist")
        let ops: [(String, () throws -> Void)] = [("load", { _ = try bad.loadItems() }),
                                                  ("create", { try bad.createItem(DocPromiseCS.item(1, 1)) }),
                                                  ("deleteAll", { try bad.deleteAllItems() })]
        for (name, op) in ops {
            do { try op(); Issue.record("\(name): no error") }
            catch { if case .invalidFilename? = error as? DataPersistenceError {} else { Issue.record("\(name): \(error)") } }
        }
        #expect(try temp.entries() == ["dir.plist"])
        let store = DocPromiseCS.store(temp)
        try store.createItem(DocPromiseCS.item(1, 1))
        do { _ = try store.deleteItem(at: 5); Issue.record("no error") }
        catch { if case .indexOutOfRange(let index, let count) = error { #expect(index == 5 && count == 1) } else { Issue.record("\(error)") } }
    }

    // CollectionStore.md: "`.writingError` [...] with the `FileStorageError` underneath (disk full, ...). After a
    // failed write the previous file is intact." (a real process at its file-size limit)
    @Test func failedWriteInAnotherProcessLeavesPreviousFile() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        try store.createItem(DocPromiseCS.item(1, 1))
        let before = DocPromiseCS.bytes(store.url)
        let faults = try ProcessFaults(program: "collection-probe", deadline: .seconds(20))
        let child = try await faults.runWithFileSizeLimit(8192, ["create-large", store.url.path, "20000"])
        #expect(child.termination == .exited(1))
        #expect(child.standardError.lowercased().contains("disk") || child.standardError.contains("writing"), "\(child.standardError)")
        #expect(DocPromiseCS.bytes(store.url) == before)
        #expect(try store.loadItems() == [DocPromiseCS.item(1, 1)])
    }

    // CollectionStore.md: "Other processes' changes arrive as `.externalChange` as soon as inotify reports them" and
    // the instance's own changes arrive as `.created`.
    @Test func otherProcessChangesArriveAsExternalChange() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let store = DocPromiseCS.store(temp)
        try store.createItem(DocPromiseCS.item(1, 1))
        let heard = DocPromiseChanges()
        let subscription = store.observe { heard.append($0) }
        defer { subscription.cancel() }
        try store.createItem(DocPromiseCS.item(1, 2))
        #expect(await waitUntil(timeout: .seconds(2)) { heard.all.contains(.created(DocPromiseCS.item(1, 2), index: 1)) })
        let child = try ChildProcess.start(try ChildProcess.builtProgram("collection-probe"), ["create-one", store.url.path, "2", "1"])
        #expect(try await child.waitForExit(deadline: .now + .seconds(20)) == .exited(0))
        let expected = [DocPromiseCS.item(1, 1), DocPromiseCS.item(1, 2), DocPromiseCS.item(2, 1)]
        #expect(await waitUntil(timeout: .seconds(2)) { heard.all.contains(.externalChange(expected)) }, "\(heard.all.count) changes")
    }

    // CollectionStore.md: "the tutorial's `DataPersistence<Deck>(filename: \"fileName.plist\")` in a program called
    // `decks` keeps its file in `~/Documents/decks/fileName.plist`" and "`PERSISTENCE_TOOLKIT_ROOT` moves all the named
    // folders (documents to `$PERSISTENCE_TOOLKIT_ROOT/Documents`)" — in a child process with its own environment.
    @Test func documentsFolderOfTheProgram() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let program = try ChildProcess.builtProgram("collection-probe")
        let home = temp.folder("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let plain = try ChildProcess.start(program, ["tutorial-decks", "A"], environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"])
        #expect(try await plain.waitForExit(deadline: .now + .seconds(20)) == .exited(0), "\(plain.standardError)")
        #expect(DocPromiseCS.exists(home.appendingPathComponent("Documents/collection-probe/fileName.plist")), "\(plain.standardOutput)")
        let root = temp.folder("root")
        let rooted = try ChildProcess.start(program, ["tutorial-decks", "B"],
                                            environment: ["HOME": home.path, "PERSISTENCE_TOOLKIT_ROOT": root.path, "PATH": "/usr/bin:/bin"])
        #expect(try await rooted.waitForExit(deadline: .now + .seconds(20)) == .exited(0), "\(rooted.standardError)")
        #expect(DocPromiseCS.exists(root.appendingPathComponent("Documents/fileName.plist")), "\(rooted.standardOutput)")
    }

    // CollectionStore.md: "Tests that need no real file use `directory: .memory(MemoryFolder())`."
    @Test func memoryDirectorySharesBetweenInstances() throws {
        let memory = MemoryFolder()
        let a = DataPersistence<CollectionProbeItem>(filename: "m.plist", directory: .memory(memory))
        let b = DataPersistence<CollectionProbeItem>(filename: "m.plist", directory: .memory(memory))
        try a.createItem(DocPromiseCS.item(1, 1))
        #expect(try b.loadItems() == [DocPromiseCS.item(1, 1)])
        #expect(memory.fileNames == ["m.plist"])
    }
}
