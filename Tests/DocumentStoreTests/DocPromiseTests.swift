// Black-box tests of what DocumentStore's DocC articles promise (DocumentStore.md, ErrorsAndTheFile.md,
// SavingAndLoading.md), written from the articles and the public API only. Each test quotes the sentence
// it checks. A promise the toolkit does not keep is wrapped in `withKnownIssue("DOC-PROMISE-FAILS: ...")`.
import DocumentStore
import FileStorageKit
import Foundation
import GRDB
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Documents (all prefixed DocPromise)

func docPromiseNumber(_ json: JSON?) -> Double? {
    switch json {
    case .double(let value)?: return value
    case .integer(let value)?: return Double(value)
    default: return nil
    }
}

func docPromiseString(_ json: JSON?) -> String? {
    if case .string(let value)? = json { return value }
    return nil
}

class DocPromiseShape: Persistable {
    class var kind: String { "DocPromiseShape" }
    var identifier = UUID().uuidString
    init() {}
    required init?(with json: JSON, from persistence: Persistence) throws {}
    func save(to: Persistence) throws { try to.save(self, json: JSON.object([:])) }
}

class DocPromiseCircle: DocPromiseShape {
    override class var kind: String { "DocPromiseCircle" }
    var radius: Double
    init(radius: Double) { self.radius = radius; super.init() }
    required init?(with json: JSON, from persistence: Persistence) throws {
        guard let radius = docPromiseNumber(json["radius"]) else { return nil }
        self.radius = radius
        try super.init(with: json, from: persistence)
    }
    override func save(to: Persistence) throws { try to.save(self, json: JSON.object(["radius": .double(radius)])) }
}

/// Unrelated to the shapes: loading a circle as one is the wrong kind.
final class DocPromiseLabel: Persistable {
    static var kind: String { "DocPromiseLabel" }
    var identifier = UUID().uuidString
    var text = ""
    init(text: String) { self.text = text }
    init?(with json: JSON, from persistence: Persistence) throws {
        guard let text = docPromiseString(json["text"]) else { return nil }   // nil: documentRejected
        self.text = text
    }
    func save(to: Persistence) throws { try to.save(self, json: JSON.object(["text": .string(text)])) }
}

struct DocPromiseRefused: Error {}

/// A box and its child; the child can be told to fail its save.
final class DocPromiseBox: Persistable {
    static var kind: String { "DocPromiseBox" }
    var identifier = UUID().uuidString
    var label = ""
    var child: DocPromisePart?
    init(label: String, child: DocPromisePart?) { self.label = label; self.child = child }
    init?(with json: JSON, from persistence: Persistence) throws {
        label = docPromiseString(json["label"]) ?? ""
        child = try persistence.load(docPromiseString(json["child"]))
    }
    func save(to: Persistence) throws {
        try to.save(self, json: JSON.object(["label": .string(label), "child": child.map { .string($0.identifier) } ?? .null]))
        if let child { try to.save(child) }
    }
}

final class DocPromisePart: Persistable {
    static var kind: String { "DocPromisePart" }
    var identifier = UUID().uuidString
    var name = ""
    var fails = false
    init(name: String) { self.name = name }
    init?(with json: JSON, from persistence: Persistence) throws { name = docPromiseString(json["name"]) ?? "" }
    func save(to: Persistence) throws {
        try to.save(self, json: JSON.object(["name": .string(name)]))
        if fails { throw DocPromiseRefused() }
    }
}

/// A node of a graph with a cycle; counts its `save(to:)` calls.
final class DocPromiseNode: Persistable {
    static var kind: String { "DocPromiseNode" }
    var identifier = UUID().uuidString
    var next: DocPromiseNode?
    var saves = 0
    init() {}
    init?(with json: JSON, from persistence: Persistence) throws {}
    func save(to: Persistence) throws {
        saves += 1
        try to.save(self, json: JSON.object(["next": next.map { .string($0.identifier) } ?? .null]))
        if let next { try to.save(next) }
    }
}

/// Loads its partner eagerly: two of them pointing at each other are a cycle of eager loads.
final class DocPromiseEager: Persistable {
    static var kind: String { "DocPromiseEager" }
    var identifier = UUID().uuidString
    var partnerID = ""
    var partner: DocPromiseEager?
    init(partnerID: String) { self.partnerID = partnerID }
    init?(with json: JSON, from persistence: Persistence) throws {
        partnerID = docPromiseString(json["partner"]) ?? ""
        partner = try persistence.load(partnerID)
    }
    func save(to: Persistence) throws { try to.save(self, json: JSON.object(["partner": .string(partnerID)])) }
}

/// Refers to a circle lazily.
final class DocPromiseHolder: Persistable {
    static var kind: String { "DocPromiseHolder" }
    var identifier = UUID().uuidString
    var target: Lazy<DocPromiseCircle>
    init(targetID: String, in persistence: Persistence) { target = Lazy(identifier: targetID, in: persistence) }
    init?(with json: JSON, from persistence: Persistence) throws {
        target = Lazy(identifier: docPromiseString(json["target"]), in: persistence)
    }
    func save(to: Persistence) throws {
        try to.save(self, json: JSON.object(["target": target.identifier.map { .string($0) } ?? .null]))
    }
}

/// Saved by the default `save(to:)`: a closure has no JSON form.
final class DocPromiseUnstorable: Persistable {
    static var kind: String { "DocPromiseUnstorable" }
    var identifier = UUID().uuidString
    var title = "t"
    var action: () -> Void = {}
    init() {}
    init?(with json: JSON, from persistence: Persistence) throws {}
}

/// Its identifier is computed from a stored value.
final class DocPromiseComputed: Persistable {
    static var kind: String { "DocPromiseComputed" }
    var name: String
    var identifier: String { "id-" + name }
    init(name: String) { self.name = name }
    init?(with json: JSON, from persistence: Persistence) throws { name = docPromiseString(json["stored"]) ?? "" }
    func save(to: Persistence) throws { try to.save(self, json: JSON.object(["stored": .string(name + "-changed")])) }
}

// MARK: - Helpers

enum DocPromiseDocs {
    static func open(_ folder: URL, _ adjust: (inout PersistenceConfiguration) -> Void = { _ in }) throws(DocumentStoreError) -> Persistence {
        var configuration = PersistenceConfiguration(url: folder.appendingPathComponent("Store.sqlite"))
        configuration.busyTimeout = .seconds(5)
        adjust(&configuration)
        let persistence = try Persistence(configuration: configuration)
        for kind: any Persistable.Type in [DocPromiseShape.self, DocPromiseCircle.self, DocPromiseLabel.self, DocPromiseBox.self,
                                           DocPromisePart.self, DocPromiseNode.self, DocPromiseEager.self, DocPromiseHolder.self,
                                           DocPromiseUnstorable.self, DocPromiseComputed.self] {
            register(kind, in: persistence)
        }
        return persistence
    }

    static func register<T: Persistable>(_ type: T.Type, in persistence: Persistence) { persistence.register(persistableKind: type) }

    /// The error `body` throws as a `DocumentStoreError` (`.misuse` naming any other error; nil when none).
    static func error(_ body: () throws -> Void) -> DocumentStoreError? {
        do { try body(); return nil } catch let error as DocumentStoreError { return error } catch { return .misuse("not a DocumentStoreError: \(error)") }
    }

    static func queue(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    static func strings(_ url: URL, _ sql: String) throws -> [String] { try queue(url).read { db in try String.fetchAll(db, sql: sql) } }
    static func int(_ url: URL, _ sql: String) throws -> Int? { try queue(url).read { db in try Int.fetchOne(db, sql: sql) } }
    static func execute(_ url: URL, _ sql: String) throws { try queue(url).writeWithoutTransaction { db in try db.execute(sql: sql) } }
    static func columns(_ url: URL, _ table: String) throws -> [String] {
        try queue(url).read { db in try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")").map { $0["name"] as String } }
    }

    static func entries(_ folder: URL, prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
    }

    static func fileSize(_ url: URL) -> Int { ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0 }

    static let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    static func lastNumber(_ lines: [String], prefix: String) -> Int? {
        lines.filter { $0.hasPrefix(prefix) }.last.flatMap { $0.split(separator: " ").last.flatMap { Int($0) } }
    }
}

/// Holds the write lock of a store (BEGIN IMMEDIATE) on a connection of its own until `end()`.
final class DocPromiseDocsLockedWriter: @unchecked Sendable {
    private let queue: DatabaseQueue
    private let release = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var began = false
    private var ended = false
    init(_ queue: DatabaseQueue) { self.queue = queue }

    func begin() async throws {
        let started = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            try? queue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                started.signal()
                release.wait()
                try db.execute(sql: "ROLLBACK")
            }
            done.signal()
        }
        let ok = await waitUntil(timeout: .seconds(10)) { started.wait(timeout: .now()) == .success }
        guard ok else { throw ChildProcessError(description: "BEGIN IMMEDIATE did not start") }
        lock.withLock { began = true }
    }

    func end() {
        let shouldEnd = lock.withLock { () -> Bool in
            guard began, !ended else { return false }
            ended = true
            return true
        }
        guard shouldEnd else { return }
        release.signal()
        done.wait()
    }
}

// MARK: - DocumentStore.md

@Suite("DocPromiseTests: DocumentStore.md")
struct DocPromiseDocumentStoreTests {
    // DocumentStore.md: "`Persistence(name:appName:directories:)` puts `<name>.sqlite` in `AppDirectories`'
    // application-support folder (pass `directories: AppDirectories(appName:root:)` in tests); `Persistence(url:)` takes a file"
    @Test func openingByNamePutsTheFileInApplicationSupportAndByURLTakesTheFile() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let directories = AppDirectories(appName: "Shapes", root: temp.url)
        let byName = try Persistence(name: "Shapes", appName: "Shapes", directories: directories)
        let expected = directories.applicationSupport.appendingPathComponent("Shapes.sqlite")
        #expect(byName.url.standardizedFileURL == expected.standardizedFileURL)
        #expect(FileManager.default.fileExists(atPath: expected.path))
        let file = temp.file("elsewhere.sqlite")
        let byURL = try Persistence(url: file)
        #expect(byURL.url.standardizedFileURL == file.standardizedFileURL)
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    // DocumentStore.md: "`Persistence(configuration:)` also sets durability (`.full` by default ...) ... and the size the
    // write-ahead log is kept near (`walSizeLimit`, 4 MB ...)"
    @Test func configurationDefaultsAreFullDurabilityAndA4MBLog() {
        let configuration = PersistenceConfiguration(url: URL(fileURLWithPath: "/tmp/x.sqlite"))
        #expect(configuration.durability == .full)
        #expect(configuration.walSizeLimit == 4 << 20)
    }

    // DocumentStore.md: "`let same: Circle? = try persistence.load(circle.identifier)   // the same instance while it is
    // held`" and "`let shape: Shape? = try persistence.load(circle.identifier)   // a Circle: kinds follow class hierarchies`"
    @Test func loadGivesTheHeldInstanceAndKindsFollowClassHierarchies() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let circle = DocPromiseCircle(radius: 2)
        try persistence.save(circle)
        let same: DocPromiseCircle? = try persistence.load(circle.identifier)
        #expect(same === circle)
        let shape: DocPromiseShape? = try persistence.load(circle.identifier)
        #expect(shape === circle)
        // From another instance (nothing held there): a Circle built from the file.
        let other = try DocPromiseDocs.open(temp.url)
        let loaded: DocPromiseShape? = try other.load(circle.identifier)
        #expect((loaded as? DocPromiseCircle)?.radius == 2)
    }

    // DocumentStore.md: "(`walSizeLimit`, 4 MB: past it, a save ends with a `TRUNCATE` checkpoint ...)"
    @Test func aSavePastTheLogLimitTruncatesTheLog() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let limit = 256 * 1024
        let persistence = try DocPromiseDocs.open(temp.url) { $0.walSizeLimit = limit }
        let text = String(repeating: "w", count: 128 * 1024)
        try persistence.transaction { p in
            for _ in 0..<10 { try p.save(DocPromiseLabel(text: text)) }
        }
        let wal = temp.file("Store.sqlite-wal")
        let bounded = await waitUntil(timeout: .seconds(3)) { DocPromiseDocs.fileSize(wal) <= limit }
        #expect(bounded, "the log is \(DocPromiseDocs.fileSize(wal)) bytes after a 1.3 MB save, limit \(limit)")
    }

    // DocumentStore.md: "(`.full` by default: a save returns after the log reached the disk)" — every acknowledged save
    // of a killed writer process is there (DocumentStore.md's power-cut paragraph: "must have every diagram with both circles")
    @Test func everyAcknowledgedSaveSurvivesAKilledWriter() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let faults = try ProcessFaults(program: "document-probe", deadline: .seconds(60))
        try await faults.killAtRandomMoments(label: "DocPromise document kill", trials: 2, maxPause: .milliseconds(60),
                                             arguments: { _ in ["write-loop", temp.url.path] }) { kill in
            let committed = kill.outputLines.compactMap { line -> Int? in
                line.hasPrefix("committed ") ? Int(line.split(separator: " ")[1]) : nil
            }.max() ?? kill.readyNumber ?? 0
            let check = try ChildProcess.start(try ChildProcess.builtProgram("document-probe"), ["power-check", temp.url.path])
            #expect(try await check.waitForExit(deadline: .now + .seconds(60)) == .exited(0), "\(kill): \(check.standardError)")
            let value = DocPromiseDocs.lastNumber(check.outputLines, prefix: "value venn") ?? -1
            #expect(value >= committed, "\(kill): \(committed) committed, \(value) found")
            let persistence = try DocPromiseDocs.open(temp.url)
            for key in [1, committed] where key > 0 {
                for id in ["venn-\(key)", "left-\(key)", "right-\(key)"] {
                    #expect(try persistence.snapshot(id) != nil, "\(kill): \(id) missing")
                }
            }
        }
    }
}

// MARK: - ErrorsAndTheFile.md

@Suite("DocPromiseTests: ErrorsAndTheFile.md")
struct DocPromiseErrorsAndTheFileTests {
    // ErrorsAndTheFile.md: "`corruptStoreMovedAside(file:movedTo:cause:)` | never thrown: in
    // `Persistence.recoveredFromCorruption` when opening found the file damaged ..., moved it with its `-wal` and `-shm`
    // to `<name>.sqlite.corrupt-<time>` and created a new store"
    @Test func aDamagedFileIsMovedAsideWithItsSidecarsAndANewStoreCreated() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        try DocPromiseDocs.garbage.write(to: temp.file("Store.sqlite"))
        try Data(repeating: 0xAB, count: 4096).write(to: temp.file("Store.sqlite-wal"))
        try Data(repeating: 0xCD, count: 32768).write(to: temp.file("Store.sqlite-shm"))
        let persistence = try DocPromiseDocs.open(temp.url)
        guard case .corruptStoreMovedAside(let file, let movedTo, _)? = persistence.recoveredFromCorruption else {
            Issue.record("recoveredFromCorruption: \(String(describing: persistence.recoveredFromCorruption))")
            return
        }
        #expect(file.hasSuffix("Store.sqlite"))
        #expect(URL(fileURLWithPath: movedTo).lastPathComponent.hasPrefix("Store.sqlite.corrupt-"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == DocPromiseDocs.garbage)
        let moved = DocPromiseDocs.entries(temp.url, prefix: "Store.sqlite.corrupt-")
        // "with its -wal and -shm when SQLite has not deleted them while closing the failed open".
        #expect(moved.count >= 1 && moved.allSatisfy { $0.hasPrefix(URL(fileURLWithPath: movedTo).lastPathComponent) },
                "with its -wal and -shm if left: \(moved); folder: \(DocPromiseDocs.entries(temp.url, prefix: ""))")
        let label = DocPromiseLabel(text: "new")
        try persistence.save(label)
        #expect(try persistence.snapshot(label.identifier) != nil)
    }

    // ErrorsAndTheFile.md: "A store another process has open is never moved: that is `cannotOpen`" — a real process has
    // the store open when a damaged file takes its name; once that process is killed, opening moves the file aside.
    @Test func aDamagedStoreAnotherProcessHasOpenIsNotMovedUntilItIsKilled() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        do { _ = try DocPromiseDocs.open(temp.url) }
        let probe = try ChildProcess.builtProgram("document-probe")
        let watcher = try ChildProcess.start(probe, ["watch", temp.url.path])
        _ = try await watcher.waitForLine(deadline: .now + .seconds(60)) { $0 == "ready" }
        // Stopped, and the store's -wal and -shm moved away with its old file: a log left beside the
        // damaged file would lend it its pages and SQLite would read the pair as a store (SQLite
        // documents that a store's files must never be renamed apart; the promise is about the lock).
        watcher.kill(SIGSTOP)
        let store = temp.file("Store.sqlite")
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            #expect(rename(store.path + suffix, temp.file("parked\(suffix)").path) == 0)
        }
        let damaged = temp.file("damaged")
        try DocPromiseDocs.garbage.write(to: damaged)
        #expect(rename(damaged.path, store.path) == 0)
        let error = DocPromiseDocs.error { _ = try DocPromiseDocs.open(temp.url) { $0.recoveryLockTimeout = .milliseconds(300) } }
        watcher.poll()
        #expect(watcher.termination == nil, "the other process must still have the store open: \(watcher.standardError)")
        guard case .cannotOpen(let file, _)? = error else {
            Issue.record("expected cannotOpen while another process has the store open, got \(String(describing: error))")
            return
        }
        #expect(file.hasSuffix("Store.sqlite"))
        #expect(DocPromiseDocs.entries(temp.url, prefix: "Store.sqlite.corrupt-").isEmpty, "never moved while open elsewhere")
        watcher.kill(SIGKILL)
        _ = try await watcher.waitForExit(deadline: .now + .seconds(20))
        let persistence = try DocPromiseDocs.open(temp.url)
        guard case .corruptStoreMovedAside(_, let movedTo, _)? = persistence.recoveredFromCorruption else {
            Issue.record("after the kill: \(String(describing: persistence.recoveredFromCorruption))")
            return
        }
        #expect(FileManager.default.fileExists(atPath: movedTo))
    }

    // ErrorsAndTheFile.md: "`corruptDatabase(file:cause:)` | the file is not a database, or is damaged, and could not be
    // moved aside (a read-only folder) ...; the file is left untouched" and "`cannotOpen` ... | the folder or file cannot
    // be written"
    @Test func aDamagedFileInAReadOnlyFolderIsCorruptDatabaseAndLeftUntouched() async throws {
        guard ProcessFaults.canRunUnprivileged else { return }
        let temp = try TemporaryFolder(prefix: "docpromise")
        let folder = temp.folder("ro")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appendingPathComponent("Store.sqlite")
        try DocPromiseDocs.garbage.write(to: store)
        try ProcessFaults.makeReadOnly(folder, files: [store], in: temp)
        let faults = try ProcessFaults(program: "document-probe", deadline: .seconds(60))
        let child = try await faults.runUnprivileged(["open", folder.path])
        #expect(child.termination == .exited(1))
        #expect(child.standardError.contains("error: corruptDatabase"), "\(child.standardError)")
        #expect(child.standardError.contains("Store.sqlite"), "names the file: \(child.standardError)")
        #expect(try Data(contentsOf: store) == DocPromiseDocs.garbage)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Store.sqlite"])

        let empty = temp.folder("ro-empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try ProcessFaults.makeReadOnly(empty, files: [], in: temp)
        let denied = try await faults.runUnprivileged(["open", empty.path])
        #expect(denied.standardError.contains("error: cannotOpen"), "\(denied.standardError)")
    }

    // ErrorsAndTheFile.md: "`cannotOpen`, `readOnly`, `diskFull`, `busyTimeout` | ... the disk (or the process's file size
    // limit) is full ...; the transaction rolled back"
    @Test func aSavePastTheFileSizeLimitIsDiskFullAndRollsBack() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        do {
            let persistence = try DocPromiseDocs.open(temp.url)
            try persistence.save(DocPromiseLabel(text: "before"))
        }
        let faults = try ProcessFaults(program: "document-probe", deadline: .seconds(60))
        let child = try await faults.runWithFileSizeLimit(96 * 1024, ["save", temp.url.path, "docpromise-big", "400000"])
        #expect(child.termination == .exited(1))
        #expect(child.standardError.contains("error: diskFull"), "\(child.standardError)")
        let persistence = try DocPromiseDocs.open(temp.url)
        #expect(try persistence.snapshot("docpromise-big") == nil)
        #expect(try DocPromiseDocs.int(persistence.url, "SELECT count(*) FROM documents") == 1)
    }

    // ErrorsAndTheFile.md: "`busyTimeout` | ... another process held the write lock too long; the transaction rolled back"
    @Test func aSaveWhileAnotherConnectionHoldsTheWriteLockIsBusyTimeout() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url) { $0.busyTimeout = .milliseconds(200) }
        let locked = DocPromiseDocsLockedWriter(try DocPromiseDocs.queue(persistence.url))
        try await locked.begin()
        let label = DocPromiseLabel(text: "blocked")
        let error = DocPromiseDocs.error { try persistence.save(label) }
        locked.end()
        guard case .busyTimeout(let file, let seconds)? = error else {
            Issue.record("expected busyTimeout, got \(String(describing: error))")
            return
        }
        #expect(file.hasSuffix("Store.sqlite") && seconds > 0 && seconds < 5)
        #expect(try persistence.snapshot(label.identifier) == nil)
        #expect(persistence.revision(of: label) == nil)
        try persistence.save(label)   // once the lock is free
        #expect(try persistence.snapshot(label.identifier) != nil)
    }

    // ErrorsAndTheFile.md: "`schemaNewerThanProgram(file:version:)` | a newer program wrote the file" and "Schema version 1
    // (`PRAGMA user_version`)"
    @Test func aFileOfANewerSchemaVersionIsRefused() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        do { _ = try DocPromiseDocs.open(temp.url) }
        let store = temp.file("Store.sqlite")
        let current = try #require(try DocPromiseDocs.int(store, "PRAGMA user_version"))
        #expect(current == Persistence.schemaVersion)
        #expect(current == 2 && Persistence.schemaVersion == 2, "'Schema version 2 (PRAGMA user_version, also Persistence.schemaVersion)'")
        let newer = current + 1
        try DocPromiseDocs.execute(store, "PRAGMA user_version = \(newer)")
        let error = DocPromiseDocs.error { _ = try DocPromiseDocs.open(temp.url) }
        guard case .schemaNewerThanProgram(let file, let version)? = error else {
            Issue.record("expected schemaNewerThanProgram, got \(String(describing: error))")
            return
        }
        #expect(file.hasSuffix("Store.sqlite") && version == newer)
    }

    // ErrorsAndTheFile.md: "`conflict(DocumentConflict)`" (a save based on a revision that is no longer current)
    @Test func aSaveBasedOnAnOldRevisionIsAConflictAndWritesNothing() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let first = try DocPromiseDocs.open(temp.url)
        let second = try DocPromiseDocs.open(temp.url)
        let circle = DocPromiseCircle(radius: 1)
        try first.save(circle)
        let theirs: DocPromiseCircle = try #require(try second.load(circle.identifier))
        theirs.radius = 5
        try second.save(theirs)
        circle.radius = 9
        let error = DocPromiseDocs.error { try first.save(circle) }
        guard case .conflict? = error else {
            Issue.record("expected conflict, got \(String(describing: error))")
            return
        }
        #expect(docPromiseNumber(try second.snapshot(circle.identifier)?.body["radius"]) == 5)
    }

    // ErrorsAndTheFile.md: "`unregisteredKind`, `wrongKind`, `documentRejected`, `missingDocument`, `cyclicLoad` | loading:
    // an unknown kind, the wrong class, `init?(with:from:)` returned nil, a `Lazy` target is gone, a cycle of eager loads"
    @Test func loadingErrorsAreTypedAndNameTheDocument() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let circle = DocPromiseCircle(radius: 1)
        try persistence.save(circle)

        let unregistered = try Persistence(url: persistence.url)   // nobody registered DocPromiseCircle here
        #expect(DocPromiseDocs.error { let _: DocPromiseShape? = try unregistered.load(circle.identifier) }
                == .unregisteredKind(kind: "DocPromiseCircle", identifier: circle.identifier))

        let wrong = DocPromiseDocs.error { let _: DocPromiseLabel? = try persistence.load(circle.identifier) }
        guard case .wrongKind(let identifier, _, let found)? = wrong else {
            Issue.record("expected wrongKind, got \(String(describing: wrong))")
            return
        }
        #expect(identifier == circle.identifier && found == "DocPromiseCircle")

        let label = DocPromiseLabel(text: "x")
        try persistence.save(label)
        try DocPromiseDocs.execute(persistence.url, "UPDATE documents SET body = '{}' WHERE id = '\(label.identifier)'")
        let fresh = try DocPromiseDocs.open(temp.url)
        #expect(DocPromiseDocs.error { let _: DocPromiseLabel? = try fresh.load(label.identifier) }
                == .documentRejected(identifier: label.identifier, kind: "DocPromiseLabel"))

        let holder = DocPromiseHolder(targetID: "docpromise-gone", in: persistence)
        try persistence.save(holder)
        let loadedHolder: DocPromiseHolder = try #require(try fresh.load(holder.identifier))
        let missing = DocPromiseDocs.error { _ = try loadedHolder.target.get() }
        guard case .missingDocument(let gone, _)? = missing else {
            Issue.record("expected missingDocument, got \(String(describing: missing))")
            return
        }
        #expect(gone == "docpromise-gone")

        let a = DocPromiseEager(partnerID: "docpromise-b")
        a.identifier = "docpromise-a"
        let b = DocPromiseEager(partnerID: "docpromise-a")
        b.identifier = "docpromise-b"
        try persistence.transaction { p in try p.save(a); try p.save(b) }
        let cyclic = DocPromiseDocs.error { let _: DocPromiseEager? = try fresh.load("docpromise-a") }
        guard case .cyclicLoad? = cyclic else {
            Issue.record("expected cyclicLoad, got \(String(describing: cyclic))")
            return
        }
    }

    // ErrorsAndTheFile.md: "`malformedJSON(identifier:offset:reason:)` | a stored body (written by another program) is not
    // JSON: the byte offset and why"
    @Test func aStoredBodyThatIsNotJSONIsMalformedJSONWithItsOffset() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let label = DocPromiseLabel(text: "x")
        try persistence.save(label)
        try DocPromiseDocs.execute(persistence.url, #"UPDATE documents SET body = '{"text": tru' WHERE id = '\#(label.identifier)'"#)
        let fresh = try DocPromiseDocs.open(temp.url)
        let error = DocPromiseDocs.error { let _: DocPromiseLabel? = try fresh.load(label.identifier) }
        guard case .malformedJSON(let identifier, let offset, _)? = error else {
            Issue.record("expected malformedJSON, got \(String(describing: error))")
            return
        }
        #expect(identifier == label.identifier)
        #expect(offset >= 9 && offset <= 12, "offset \(offset)")
    }

    // ErrorsAndTheFile.md: "`invalidValue(identifier:path:reason:)` | NaN or an infinity in a body"
    @Test func NaNInABodyIsInvalidValueAndNothingIsWritten() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let circle = DocPromiseCircle(radius: .nan)
        let error = DocPromiseDocs.error { try persistence.save(circle) }
        guard case .invalidValue(let identifier, let path, _)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(identifier == circle.identifier && path.contains("radius"), "\(path)")
        #expect(try persistence.snapshot(circle.identifier) == nil)
    }

    // ErrorsAndTheFile.md: "`unstorableProperty(identifier:kind:property:type:)` | the default `save(to:)` met a property
    // whose type has no JSON form; nothing was written"
    @Test func theDefaultSaveOfAPropertyWithNoJSONFormIsUnstorableProperty() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let object = DocPromiseUnstorable()
        let error = DocPromiseDocs.error { try persistence.save(object) }
        guard case .unstorableProperty(let identifier, let kind, let property, _)? = error else {
            Issue.record("expected unstorableProperty, got \(String(describing: error))")
            return
        }
        #expect(identifier == object.identifier && kind == "DocPromiseUnstorable" && property == "action")
        #expect(try persistence.snapshot(object.identifier) == nil)
    }

    // ErrorsAndTheFile.md: "`identifierNotStored(kind:identifier:found:)` | a loaded object's identifier is computed and
    // differs from its document's"
    @Test func aComputedIdentifierThatDiffersFromItsDocumentsIsIdentifierNotStored() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        try persistence.save(DocPromiseComputed(name: "a"))   // document id-a, whose body makes the name a-changed
        let fresh = try DocPromiseDocs.open(temp.url)
        let error = DocPromiseDocs.error { let _: DocPromiseComputed? = try fresh.load("id-a") }
        #expect(error == .identifierNotStored(kind: "DocPromiseComputed", identifier: "id-a", found: "id-a-changed"))
    }

    // ErrorsAndTheFile.md: "`databaseInUse(file:)`, `databaseDeleted(file:)` | `deleteDatabase()` refused because the file is
    // open elsewhere; the store was deleted through this instance" — elsewhere: another instance, then another process,
    // then right after that process is killed.
    @Test func deleteDatabaseIsRefusedWhileOpenElsewhereAndWorksOnceTheOtherProcessIsKilled() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let label = DocPromiseLabel(text: "x")
        try persistence.save(label)
        let store = temp.file("Store.sqlite")
        do {
            let other = try DocPromiseDocs.open(temp.url)
            #expect(DocPromiseDocs.error { try persistence.deleteDatabase() } == .databaseInUse(file: store.path)
                    || DocPromiseDocs.error { try persistence.deleteDatabase() }.map { if case .databaseInUse = $0 { true } else { false } } == true)
            withExtendedLifetime(other) {}
        }
        let watcher = try ChildProcess.start(try ChildProcess.builtProgram("document-probe"), ["watch", temp.url.path])
        _ = try await watcher.waitForLine(deadline: .now + .seconds(60)) { $0 == "ready" }
        let inUse = DocPromiseDocs.error { try persistence.deleteDatabase() }
        guard case .databaseInUse(let file)? = inUse else {
            Issue.record("another process has it open: expected databaseInUse, got \(String(describing: inUse))")
            return
        }
        #expect(file.hasSuffix("Store.sqlite"))
        #expect(FileManager.default.fileExists(atPath: store.path), "nothing changed")
        #expect(try persistence.snapshot(label.identifier) != nil)
        watcher.kill(SIGKILL)
        _ = try await watcher.waitForExit(deadline: .now + .seconds(20))
        try persistence.deleteDatabase()
        for suffix in ["", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: store.path + suffix), "\(suffix)") }
        let deleted = DocPromiseDocs.error { _ = try persistence.snapshot(label.identifier) }
        guard case .databaseDeleted(let deletedFile)? = deleted else {
            Issue.record("after deleteDatabase: expected databaseDeleted, got \(String(describing: deleted))")
            return
        }
        #expect(deletedFile.hasSuffix("Store.sqlite"))
        #expect(DocPromiseDocs.error { try persistence.save(DocPromiseLabel(text: "y")) }.map { if case .databaseDeleted = $0 { true } else { false } } == true)
        let reopened = try DocPromiseDocs.open(temp.url)
        #expect(try reopened.snapshot(label.identifier) == nil, "a new Persistence on the same file starts an empty store")
    }

    // ErrorsAndTheFile.md: "`documents(number, id, kind, revision, deleted, body)` ...; `revisions(document, revision,
    // parent, generation, deleted, body)` ...; `changes(sequence, document, revision, deleted)` ...; `checkpoints(name,
    // value)`", "printed by `Persistence.schemaStatements`"
    @Test func theFileHasTheDocumentedTables() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let store = persistence.url
        #expect(try DocPromiseDocs.columns(store, "documents") == ["number", "id", "kind", "revision", "deleted", "body"])
        #expect(try DocPromiseDocs.columns(store, "revisions") == ["document", "revision", "parent", "generation", "deleted", "body"])
        #expect(try DocPromiseDocs.columns(store, "changes") == ["sequence", "document", "revision", "deleted"])
        #expect(try DocPromiseDocs.columns(store, "checkpoints") == ["name", "value"])
        let statements = Persistence.schemaStatements.joined(separator: "\n")
        for table in ["documents", "revisions", "changes", "checkpoints"] { #expect(statements.contains(table)) }
    }
}

// MARK: - SavingAndLoading.md

@Suite("DocPromiseTests: SavingAndLoading.md")
struct DocPromiseSavingAndLoadingTests {
    // SavingAndLoading.md: "`Persistence` is `Sendable`: use one instance from any thread or task. ... Loading an
    // identifier returns the same instance on every thread while anyone holds it"
    @Test func oneInstanceFromManyTasksLoadsTheSameHeldObject() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let circle = DocPromiseCircle(radius: 3)
        try persistence.save(circle)
        let id = circle.identifier
        let identities = try await withThrowingTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<8 {
                group.addTask { () -> ObjectIdentifier? in
                    let loaded: DocPromiseCircle? = try persistence.load(id)
                    return loaded.map { ObjectIdentifier($0) }
                }
            }
            var all: [ObjectIdentifier?] = []
            for try await identity in group { all.append(identity) }
            return all
        }
        #expect(identities.allSatisfy { $0 == ObjectIdentifier(circle) })
        withExtendedLifetime(circle) {}
    }

    // SavingAndLoading.md: "a graph is written whole or not at all: when anything throws, nothing is written and no
    // object's revision changes."
    @Test func aGraphWhoseChildThrowsWritesNothingAndKeepsRevisions() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let part = DocPromisePart(name: "p1")
        let box = DocPromiseBox(label: "v1", child: part)
        try persistence.save(box)
        let boxRevision = persistence.revision(of: box)
        let partRevision = persistence.revision(of: part)
        #expect(boxRevision != nil && partRevision != nil)
        box.label = "v2"
        part.name = "p2"
        part.fails = true
        let newPart = DocPromisePart(name: "new")
        #expect(throws: DocPromiseRefused.self) {
            try persistence.transaction { p in
                try p.save(newPart)
                try p.save(box)
            }
        }
        #expect(persistence.revision(of: box) == boxRevision)
        #expect(persistence.revision(of: part) == partRevision)
        #expect(docPromiseString(try persistence.snapshot(box.identifier)?.body["label"]) == "v1")
        #expect(docPromiseString(try persistence.snapshot(part.identifier)?.body["name"]) == "p1")
        #expect(try persistence.snapshot(newPart.identifier) == nil)
    }

    // SavingAndLoading.md: "the store calls each identifier's `save(to:)` at most once per transaction, so graphs with
    // cycles end." and "Saving an object whose stored body is unchanged writes nothing: loading a graph and saving it
    // again creates no document and no revision."
    @Test func aCycleIsSavedOnceAndAnUnchangedGraphWritesNothing() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let a = DocPromiseNode()
        let b = DocPromiseNode()
        a.next = b
        b.next = a
        try persistence.save(a)
        #expect(a.saves == 1 && b.saves == 1)
        let revisions = try DocPromiseDocs.int(persistence.url, "SELECT count(*) FROM revisions")
        let changes = try DocPromiseDocs.int(persistence.url, "SELECT count(*) FROM changes")
        let revisionOfA = persistence.revision(of: a)
        try persistence.save(a)
        #expect(persistence.revision(of: a) == revisionOfA)
        #expect(try DocPromiseDocs.int(persistence.url, "SELECT count(*) FROM revisions") == revisions)
        #expect(try DocPromiseDocs.int(persistence.url, "SELECT count(*) FROM changes") == changes)
        #expect(try DocPromiseDocs.int(persistence.url, "SELECT count(*) FROM documents") == 2)
        a.next = nil; b.next = nil   // break the cycle for ARC
    }

    // SavingAndLoading.md: "`load(_ identifier: String?)` returns `nil` for a `nil` identifier, a missing document or a deleted one."
    @Test func loadReturnsNilForNilMissingAndDeleted() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let nothing: DocPromiseLabel? = try persistence.load(nil)
        #expect(nothing == nil)
        let missing: DocPromiseLabel? = try persistence.load("docpromise-missing")
        #expect(missing == nil)
        let label = DocPromiseLabel(text: "x")
        try persistence.save(label)
        try persistence.delete(label)
        let deleted: DocPromiseLabel? = try persistence.load(label.identifier)
        #expect(deleted == nil)
        let other = try DocPromiseDocs.open(temp.url)
        let deletedElsewhere: DocPromiseLabel? = try other.load(label.identifier)
        #expect(deletedElsewhere == nil)
    }

    // SavingAndLoading.md: "The identity map holds objects weakly: the same identifier gives the same instance while anyone
    // holds it; once released, the next load reads the file again. `isCached(identifier:)` tells."
    @Test func theIdentityMapHoldsObjectsWeakly() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        var label: DocPromiseLabel? = DocPromiseLabel(text: "x")
        let id = label!.identifier
        try persistence.save(label!)
        #expect(persistence.isCached(identifier: id))
        label = nil
        #expect(!persistence.isCached(identifier: id))
        try DocPromiseDocs.execute(persistence.url, #"UPDATE documents SET body = '{"text":"from the file"}' WHERE id = '\#(id)'"#)
        let reloaded: DocPromiseLabel? = try persistence.load(id)
        #expect(reloaded?.text == "from the file")
    }

    // SavingAndLoading.md: "A held instance is not reloaded when another process changes its document. `refresh(_:)`
    // returns a fresh instance at the current revision (and makes it the map's instance); `revision(of:)` tells the
    // revision an object was loaded or saved at." (the other writer: a second Persistence on the file)
    @Test func aHeldInstanceIsNotReloadedAndRefreshGivesTheCurrentRevision() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let circle = DocPromiseCircle(radius: 1)
        try persistence.save(circle)
        let first = persistence.revision(of: circle)
        let other = try DocPromiseDocs.open(temp.url)
        let theirs: DocPromiseCircle = try #require(try other.load(circle.identifier))
        theirs.radius = 8
        try other.save(theirs)
        let current = other.revision(of: theirs)
        #expect(current != first)
        let held: DocPromiseCircle? = try persistence.load(circle.identifier)
        #expect(held === circle && circle.radius == 1 && persistence.revision(of: circle) == first)
        let fresh = try #require(try persistence.refresh(circle))
        #expect(fresh !== circle && fresh.radius == 8)
        #expect(persistence.revision(of: fresh) == current)
        let again: DocPromiseCircle? = try persistence.load(circle.identifier)
        #expect(again === fresh)
    }

    // SavingAndLoading.md: "Inside a transaction, a load or query of an object saved (or loaded) earlier in it returns that
    // same instance, and an object it deleted loads as `nil`." and "After a rollback nothing it did is in the map: a
    // document it created is neither served nor cached, ... and every object keeps the revision it had before (so it can
    // be saved again without a conflict)."
    @Test func insideATransactionAndAfterItsRollback() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let kept = DocPromiseLabel(text: "kept")
        let doomed = DocPromiseLabel(text: "doomed")
        try persistence.transaction { p in try p.save(kept); try p.save(doomed) }
        let keptRevision = persistence.revision(of: kept)
        let created = DocPromiseLabel(text: "created")
        #expect(throws: DocPromiseRefused.self) {
            try persistence.transaction { p in
                try p.save(created)
                let same: DocPromiseLabel? = try p.load(created.identifier)
                #expect(same === created)
                kept.text = "changed"
                try p.save(kept)
                try p.delete(doomed)
                let gone: DocPromiseLabel? = try p.load(doomed.identifier)
                #expect(gone == nil)
                throw DocPromiseRefused()
            }
        }
        #expect(!persistence.isCached(identifier: created.identifier))
        let served: DocPromiseLabel? = try persistence.load(created.identifier)
        #expect(served == nil)
        #expect(persistence.revision(of: kept) == keptRevision)
        let doomedAgain: DocPromiseLabel? = try persistence.load(doomed.identifier)
        #expect(doomedAgain != nil)
        try persistence.save(kept)   // no conflict
        #expect(docPromiseString(try persistence.snapshot(kept.identifier)?.body["text"]) == "changed")
    }

    // SavingAndLoading.md: "lazily with `Lazy<T>`, which loads on first `get()` and reports a missing target
    // (`missingDocument`) or the wrong kind as a typed error"
    @Test func lazyLoadsOnFirstGetAndReportsTheWrongKindTyped() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let persistence = try DocPromiseDocs.open(temp.url)
        let circle = DocPromiseCircle(radius: 4)
        try persistence.save(circle)
        let label = DocPromiseLabel(text: "not a circle")
        try persistence.save(label)
        let fresh = try DocPromiseDocs.open(temp.url)
        let lazy = Lazy<DocPromiseCircle>(identifier: circle.identifier, in: fresh)
        #expect(!lazy.isLoaded)
        #expect(try lazy.get()?.radius == 4)
        #expect(lazy.isLoaded)
        let wrong = Lazy<DocPromiseCircle>(identifier: label.identifier, in: fresh)
        let error = DocPromiseDocs.error { _ = try wrong.get() }
        guard case .wrongKind(let identifier, _, _)? = error else {
            Issue.record("expected wrongKind, got \(String(describing: error))")
            return
        }
        #expect(identifier == label.identifier)
    }
}
