// Black-box tests of the promises in ModelPersistence's DocC articles (ReadsAndWrites, WhereTheFileIs,
// ErrorsAndDiagnostics), written from the articles and the public API only. Each test quotes the sentence it checks.
import Foundation
import Testing
import ModelPersistence
import FileStorageKit
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The model `model-probe` works on (`ProbeModel.storage.plist`, keys `count`, `a`, `b`), declared here too so that
/// this process and the probe share its file.
@PersistedModel
final class DocPromiseProbeModel {
    @StorageName static let storageName = "ProbeModel"
    var count: Int = 0
    var a: String = ""
    var b: String = ""
}

enum DocPromiseMP {
    static func inode(_ url: URL) -> UInt64? { var st = stat(); return lstat(url.path, &st) == 0 ? UInt64(st.st_ino) : nil }
    static func exists(_ url: URL) -> Bool { var st = stat(); return lstat(url.path, &st) == 0 }
    static func file(_ folder: URL) -> URL { folder.appendingPathComponent("ProbeModel.storage.plist") }
    static func contents(_ folder: URL) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: file(folder).path) else { return nil }
        return (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) as? [String: Any]
    }
    /// A model bound to `folder` and used once (its location is read at first use).
    static func model(_ folder: URL) -> DocPromiseProbeModel {
        PersistenceLocation.$folder.withValue(folder) { let m = DocPromiseProbeModel(); _ = m.count; return m }
    }
    static func probe(_ arguments: [String]) async throws -> ChildProcess {
        let child = try ChildProcess.start(try ChildProcess.builtProgram("model-probe"), arguments)
        try await child.waitForExit(deadline: .now + .seconds(20))
        return child
    }
}

@Suite struct DocPromiseTests {
    // ReadsAndWrites.md: "**Creating an instance touches nothing.**" and "no file: the current values (what `init`
    // assigned) are written, so the file exists from then on"; WhereTheFileIs.md: "A missing folder is created on first use."
    @Test func creatingTouchesNothingAndFirstUseWritesTheFile() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let folder = temp.folder("x/y")
        let model = PersistenceLocation.$folder.withValue(folder) { () -> DocPromiseProbeModel in
            let m = DocPromiseProbeModel()
            #expect(!DocPromiseMP.exists(temp.folder("x")), "creating an instance touched the disk")
            _ = m.a
            return m
        }
        #expect(DocPromiseMP.contents(folder)?["count"] as? Int == 0)
        #expect(DocPromiseMP.contents(folder)?["a"] as? String == "")
        #expect(DocPromiseProbeModel.self == type(of: model))
    }

    // ReadsAndWrites.md: "a file: its values **win** over what `init` assigned [...] and nothing is rewritten."
    @Test func fileValuesWinAndNothingIsRewritten() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        #expect(try await DocPromiseMP.probe(["set-a", temp.url.path, "from-probe"]).termination == .exited(0))
        let inode = DocPromiseMP.inode(DocPromiseMP.file(temp.url))
        let model = DocPromiseMP.model(temp.url)
        #expect(model.a == "from-probe")
        #expect(DocPromiseMP.inode(DocPromiseMP.file(temp.url)) == inode)
    }

    // ReadsAndWrites.md: "When it differs (another instance or process wrote the file), the file is read" and "Two
    // instances or two processes that set *different* properties therefore keep both values; what the other wrote is
    // brought into memory by the same write."
    @Test func differentPropertiesSetByTwoProcessesAreBothKept() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let model = DocPromiseMP.model(temp.url)
        #expect(try await DocPromiseMP.probe(["set-a", temp.url.path, "A1"]).termination == .exited(0))
        model.b = "B1"
        #expect(model.a == "A1")
        #expect(DocPromiseMP.contents(temp.url)?["a"] as? String == "A1")
        #expect(DocPromiseMP.contents(temp.url)?["b"] as? String == "B1")
        let show = try await DocPromiseMP.probe(["show", temp.url.path])
        #expect(show.outputLines.contains("a A1") && show.outputLines.contains("b B1"), "\(show.standardOutput)")
    }

    // ReadsAndWrites.md: "**`update` makes read-modify-write atomic.** [...] `// never loses an increment`" — two
    // processes and this one at once.
    @Test func updateAcrossProcessesNeverLosesAnIncrement() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let model = DocPromiseMP.model(temp.url)
        let faults = try ProcessFaults(program: "model-probe", deadline: .seconds(20))
        async let children = faults.runTogether([["increment", temp.url.path, "20"], ["increment", temp.url.path, "20"]])
        for _ in 0..<20 { try await model.update { $0.count += 1 } }
        _ = try await children
        let total = try await model.update { $0.count }
        #expect(total == 60)
        #expect(DocPromiseMP.contents(temp.url)?["count"] as? Int == 60)
    }

    // ReadsAndWrites.md: "It returns the body's result. When the body throws, what it set before throwing is still
    // written and the error is rethrown." and "using a second instance of the same model inside the body does not deadlock."
    @Test func updateReturnsResultWritesOnThrowAndAllowsSecondInstance() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let model = DocPromiseMP.model(temp.url)
        let other = DocPromiseMP.model(temp.url)
        #expect(try model.update { m -> Int in m.count = 5; return 42 } == 42)
        struct Stop: Error {}
        #expect(throws: Stop.self) { try model.update { m in m.a = "before-throw"; throw Stop() } }
        #expect(DocPromiseMP.contents(temp.url)?["a"] as? String == "before-throw")
        try model.update { m in m.count += 1; other.b = "inside" }
        #expect(DocPromiseMP.contents(temp.url)?["b"] as? String == "inside")
        #expect(DocPromiseMP.contents(temp.url)?["count"] as? Int == 6)
    }

    // ReadsAndWrites.md: "Setting a property to the value the file already holds rewrites nothing."
    @Test func settingTheSameValueRewritesNothing() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let model = DocPromiseMP.model(temp.url)
        model.a = "same"
        let inode = DocPromiseMP.inode(DocPromiseMP.file(temp.url))
        model.a = "same"
        DocPromiseMP.model(temp.url).a = "same"
        #expect(DocPromiseMP.inode(DocPromiseMP.file(temp.url)) == inode)
    }

    // ReadsAndWrites.md: "**`withBatch` coalesces sets.** Inside `withBatch { }` sets only mark their keys; one write at
    // the end stores them all, merged into the newest file like a single set."
    @Test func withBatchWritesOnceAtTheEnd() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let model = DocPromiseMP.model(temp.url)
        let inode = DocPromiseMP.inode(DocPromiseMP.file(temp.url))
        try await model.withBatch { m in
            for i in 1...200 { m.count = i }
            m.a = "batched"
            #expect(DocPromiseMP.inode(DocPromiseMP.file(temp.url)) == inode, "a set inside a batch wrote")
        }
        // (the probe sets b between two batches: merged, not overwritten)
        #expect(try await DocPromiseMP.probe(["set-b", temp.url.path, "probe"]).termination == .exited(0))
        model.withBatch { $0.count = 201 }
        let file = DocPromiseMP.contents(temp.url)
        #expect(file?["count"] as? Int == 201 && file?["a"] as? String == "batched" && file?["b"] as? String == "probe")
    }

    // ReadsAndWrites.md: "**`delete()`** removes the file durably under the lock. Instances in use keep their values;
    // the next set of one of them writes a fresh file from all of them. `isPersisted` says whether the file exists."
    @Test func deleteThenNextSetWritesFreshFile() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let model = DocPromiseMP.model(temp.url)
        model.a = "keep"; model.count = 3
        try PersistenceLocation.$folder.withValue(temp.url) {
            #expect(DocPromiseProbeModel.isPersisted)
            #expect(DocPromiseProbeModel.url.path == DocPromiseMP.file(temp.url).path)
            try DocPromiseProbeModel.delete()
            #expect(!DocPromiseProbeModel.isPersisted)
        }
        #expect(!DocPromiseMP.exists(DocPromiseMP.file(temp.url)))
        #expect(model.a == "keep" && model.count == 3)
        model.b = "new"
        let file = DocPromiseMP.contents(temp.url)
        #expect(file?["a"] as? String == "keep" && file?["count"] as? Int == 3 && file?["b"] as? String == "new")
    }

    // ErrorsAndDiagnostics.md: "`.corruptFile(PlistError, movedTo:)` | the file is not a property list [...] | the file
    // is renamed to `<name>.storage.plist.corrupt-<UTC timestamp>` under the lock (e.g.
    // `Settings.storage.plist.corrupt-20250314T101502.123Z` [...]) [...] On first use the fresh file is written at once"
    // and "A failure is a `PersistenceError` value that names the document, the file, the operation"
    @Test func corruptFileOnFirstUseIsMovedAsideAndFreshFileWritten() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let garbage = Data("this is not a property list".utf8)
        FileManager.default.createFile(atPath: DocPromiseMP.file(temp.url).path, contents: garbage)
        let model = DocPromiseMP.model(temp.url)
        let error = try #require(model.persistenceError)
        #expect(error.operation == .load)
        #expect(error.documentName == "ProbeModel")
        #expect(error.url.path == DocPromiseMP.file(temp.url).path)
        guard case .corruptFile(_, let movedTo) = error.cause, let moved = movedTo else {
            Issue.record("cause \(error.cause)"); return
        }
        #expect(moved.lastPathComponent.wholeMatch(of: /ProbeModel\.storage\.plist\.corrupt-\d{8}T\d{6}\.\d{3}Z(-\d+)?/) != nil,
                "\(moved.lastPathComponent)")
        #expect(FileManager.default.contents(atPath: moved.path) == garbage)
        #expect(DocPromiseMP.contents(temp.url)?["count"] as? Int == 0, "no fresh file at once")
    }

    // ErrorsAndDiagnostics.md: "[the file is] never overwritten in place; the model keeps its last good values; the next
    // write starts a fresh file from them" — the file damaged by another writer while the model is in use.
    @Test func corruptFileOnReloadKeepsLastGoodValues() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let model = DocPromiseMP.model(temp.url)
        model.a = "good"
        let garbage = Data("garbage".utf8)
        try DurableFile.write(garbage, to: DocPromiseMP.file(temp.url))
        #expect(await waitUntil(timeout: .seconds(2)) { _ = model.count; return model.persistenceError != nil })
        #expect(model.a == "good")
        if case .corruptFile? = model.persistenceError?.cause {} else { Issue.record("\(String(describing: model.persistenceError))") }
        let aside = try temp.entries().filter { $0.hasPrefix("ProbeModel.storage.plist.corrupt-") }
        #expect(aside.count == 1)
        model.b = "after"
        let file = DocPromiseMP.contents(temp.url)
        #expect(file?["a"] as? String == "good" && file?["b"] as? String == "after")
    }

    // ErrorsAndDiagnostics.md: "`.undecodableValue(key:message:)` | a value in the file does not decode as the
    // property's type | the property keeps its value"
    @Test func undecodableValueKeepsTheProperty() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let bytes = try PropertyListSerialization.data(fromPropertyList: ["count": "many", "a": "ok", "b": ""], format: .binary, options: 0)
        FileManager.default.createFile(atPath: DocPromiseMP.file(temp.url).path, contents: bytes)
        let model = DocPromiseMP.model(temp.url)
        #expect(model.count == 0)
        #expect(model.a == "ok")
        if case .undecodableValue(let key, _)? = model.persistenceError?.cause { #expect(key == "count") }
        else { Issue.record("\(String(describing: model.persistenceError))") }
    }

    // ErrorsAndDiagnostics.md: "a failed write leaves the keys pending: the next set, the end of a batch or `flush()`
    // retries them" and ReadsAndWrites.md: "**`flush()`** writes now what is set and not written yet [...] It throws
    // the `PersistenceError` the write hit (the values stay pending)."
    @Test func failedWriteStaysPendingAndFlushRetries() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let folder = temp.folder("m")
        let model = DocPromiseMP.model(folder)
        model.a = "first"
        try FileManager.default.removeItem(at: folder)
        FileManager.default.createFile(atPath: folder.path, contents: Data("a file where the folder was".utf8))
        model.a = "pending"
        let error = try #require(model.persistenceError)
        #expect(error.operation == .save)
        if case .file = error.cause {} else { Issue.record("cause \(error.cause)") }
        #expect(throws: PersistenceError.self) { try model.flush() }
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try model.flush()
        #expect(DocPromiseMP.contents(folder)?["a"] as? String == "pending")
    }

    // ReadsAndWrites.md: "A set that returned survives [...] not only a killed process" — a real `set-loop` killed at
    // random moments: the file always holds one whole version, at least the last acknowledged one.
    @Test func killedSetterLeavesAWholeVersion() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let faults = try ProcessFaults(program: "model-probe", deadline: .seconds(20))
        try await faults.killAtRandomMoments(label: "doc-promise model", trials: 4, maxPause: .milliseconds(20),
                                             arguments: { _ in ["set-loop", temp.url.path] }) { kill in
            let text = DocPromiseMP.contents(temp.url)?["a"] as? String
            let version = text.flatMap(LoopValue.version(of:))
            #expect(version != nil, "\(kill): not a whole version")
            let acked = kill.outputLines.compactMap { $0.hasPrefix("acked a ") ? Int($0.split(separator: " ")[2]) : nil }.max()
            if let acked, let version { #expect(version >= acked, "\(kill)") }
            let show = try await DocPromiseMP.probe(["show", temp.url.path])
            #expect(show.termination == .exited(0), "\(show.standardError)")
        }
    }

    // ReadsAndWrites.md: "when another writer changed a property's value in the file, `withObservationTracking`'s
    // `onChange` runs right away"
    @Test func otherProcessChangeReachesObservation() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let model = DocPromiseMP.model(temp.url)
        let fired = DocPromiseFired()
        withObservationTracking { _ = model.a } onChange: { fired.set() }
        #expect(try await DocPromiseMP.probe(["set-a", temp.url.path, "remote"]).termination == .exited(0))
        #expect(await waitUntil(timeout: .seconds(2)) { fired.value })
        #expect(model.a == "remote")
    }

    // WhereTheFileIs.md: "An instance reads the location once, the first time one of its properties is used, and
    // keeps it for life, even after the binding's scope ends. The static members `url`, `isPersisted` and `delete()`
    // read it each time they are called."
    @Test func instanceKeepsItsLocationStaticsReadItEachTime() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let one = temp.folder("one"), two = temp.folder("two")
        let model = DocPromiseMP.model(one)
        PersistenceLocation.$folder.withValue(two) {
            model.a = "still-one"
            #expect(DocPromiseProbeModel.url.path == DocPromiseMP.file(two).path)
            #expect(!DocPromiseProbeModel.isPersisted)
        }
        #expect(DocPromiseMP.contents(one)?["a"] as? String == "still-one")
        #expect(!DocPromiseMP.exists(two))
        PersistenceLocation.$folder.withValue(one) { #expect(DocPromiseProbeModel.isPersisted) }
    }

    // WhereTheFileIs.md: "otherwise (the default) the application-support folder of `AppDirectories(appName: <process
    // name>)`: `~/.local/share/<program>` on Linux (`$XDG_DATA_HOME` honoured) [...] or `$PERSISTENCE_TOOLKIT_ROOT/
    // ApplicationSupport` when that variable is set" and "On Linux `documentDataFolder` is `$HOME/Library/Application
    // Support`" — each in a child process with its own environment.
    @Test func defaultFolderInAChildProcess() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let program = try ChildProcess.builtProgram("model-probe")
        let home = temp.folder("home").path
        let cases: [([String], [String: String], String)] = [
            (["some-model-set", "-", "s", "true"], ["HOME": home], "\(home)/.local/share/model-probe/SomeModel.storage.plist"),
            (["some-model-set", "-", "s", "true"], ["HOME": home, "XDG_DATA_HOME": temp.folder("xdg").path],
             temp.folder("xdg").path + "/model-probe/SomeModel.storage.plist"),
            (["some-model-set", "-", "s", "true"], ["HOME": home, "PERSISTENCE_TOOLKIT_ROOT": temp.folder("root").path],
             temp.folder("root").path + "/ApplicationSupport/SomeModel.storage.plist"),
            (["some-model-dd-set", "-", "s", "true"], ["HOME": home], "\(home)/Library/Application Support/SomeModel.storage.plist"),
        ]
        for (arguments, environment, expected) in cases {
            let child = try ChildProcess.start(program, arguments, environment: environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a })
            #expect(try await child.waitForExit(deadline: .now + .seconds(20)) == .exited(0), "\(arguments): \(child.standardError)")
            #expect(DocPromiseMP.exists(URL(fileURLWithPath: expected)), "\(arguments) \(environment): no \(expected)")
        }
    }

    // ErrorsAndDiagnostics.md: "`for await error in PersistenceErrors.stream() { … }`: any number of streams"
    @Test func errorsReachEveryStream() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let first = PersistenceErrors.stream(), second = PersistenceErrors.stream()
        FileManager.default.createFile(atPath: DocPromiseMP.file(temp.url).path, contents: Data("junk".utf8))
        _ = DocPromiseMP.model(temp.url)
        for stream in [first, second] {
            let found = try await Self.firstError(in: stream, about: DocPromiseMP.file(temp.url))
            #expect(found?.operation == .load)
        }
    }

    static func firstError(in stream: AsyncStream<PersistenceError>, about url: URL) async throws -> PersistenceError? {
        let task = Task { () -> PersistenceError? in
            for await error in stream where error.url.path == url.path { return error }
            return nil
        }
        let timeout = Task { try await Task.sleep(for: .seconds(2)); task.cancel() }
        defer { timeout.cancel() }
        return await task.value
    }
}

final class DocPromiseFired: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.lock(); flag = true; lock.unlock() }
    var value: Bool { lock.lock(); defer { lock.unlock() }; return flag }
}
