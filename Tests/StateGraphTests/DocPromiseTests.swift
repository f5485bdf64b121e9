// Black-box tests of the promises of StateGraph's DocC articles PersistentBacking.md, ObservingNodes.md,
// ThreadsAndCycles.md and DeclaringNodes.md, written from the articles and the public API only. Crash and
// contention tests run the real `graph-probe` program (Tests/GraphProbe) through TestSupport.
import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Helpers

/// A value shared between threads under a lock.
final class DocPromiseBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
    @discardableResult func mutate<R>(_ body: (inout T) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&stored) }
}

enum DocPromiseFiles {
    /// The suite file's top-level dictionary, or nil when it is missing or does not parse.
    static func dictionary(_ url: URL) -> PlistDictionary? {
        guard let data = try? Data(contentsOf: url), let value = try? PlistValue(parsing: data) else { return nil }
        return value.dictionaryValue
    }

    static func inode(_ url: URL) -> UInt64? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return UInt64(info.st_ino)
    }

    static func mtime(_ url: URL) -> Int? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
    }

    static func probe() throws -> URL { try ChildProcess.builtProgram("graph-probe") }

    /// Runs graph-probe with `arguments` to its end.
    static func runProbe(_ arguments: [String]) async throws -> ChildProcess {
        let child = try ChildProcess.start(try probe(), arguments)
        try await child.waitForExit(deadline: .now + .seconds(20))
        return child
    }

    /// Runs `body` on a new thread; waits for it (async, with a deadline) and returns whether it finished.
    static func onThread(timeout: Duration = .seconds(5), _ body: @escaping @Sendable () -> Void) async -> Bool {
        let done = DocPromiseBox(false)
        Thread.detachNewThread { body(); done.value = true }
        return await waitUntil(timeout: timeout) { done.value }
    }
}

/// A two-party rendezvous with a deadline (never hangs a test).
final class DocPromiseRendezvous: @unchecked Sendable {
    private let arrived = DocPromiseBox(0)
    func arriveAndWait() {
        arrived.mutate { $0 += 1 }
        let deadline = ContinuousClock.now + .seconds(2)
        while arrived.value < 2 && ContinuousClock.now < deadline { usleep(200) }
    }
}

struct DocPromiseTheme: Codable, Sendable {   // deliberately not Equatable
    var name: String
    var size: Int
}

struct DocPromiseEditorPreferences: Codable, Equatable, Sendable, UserDefaultsStorable {
    var fontSize: Int
}

final class DocPromiseSettings {
    @GraphUserDefault("theme", suiteName: "docpromise.app") var theme: String = "light"
    @GraphUserDefault("editor", suiteName: "docpromise.app") var editor = DocPromiseEditorPreferences(fontSize: 12)
    @GraphStored(backed: .userDefaults(suite: "docpromise.app", key: "k", name: "node name")) var named: Int = 0
}

final class DocPromisePair: Sendable {
    @GraphStored(backed: .userDefaults(suite: "docpromise.pair", key: "theme")) var theme: Int = 0
    @GraphStored(backed: .userDefaults(suite: "docpromise.pair", key: "font")) var font: Int = 0
}

final class DocPromiseProbeCount: Sendable {
    @GraphStored(backed: .userDefaults(suite: "probe", key: "count")) var count: Int = 0
    @GraphComputed var doubled: Int
    init() { $doubled = .init { [$count] _ in $count.wrappedValue * 2 } }
}

/// Waits on the main actor, with a deadline, for state only the main actor touches.
@MainActor func docPromiseWaitOnMain(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + DeadlineScale.scaled(timeout)
    while !condition() {
        if ContinuousClock.now >= deadline { return condition() }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

// MARK: - PersistentBacking.md

@Suite struct DocPromisePersistentBackingTests {
    // PersistentBacking.md: "A `.userDefaults` node keeps its value under a key of a `DefaultsSuite`, the file
    // `<folder>/<suite>.plist` (a property list, keys sorted). Every node of the same file in a process shares one
    // `DefaultsSuite`, so reads are served from memory."
    @Test func nodeKeepsItsValueInFolderSuitePlistWithSortedKeys() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let (z, a, m) = GraphStorageLocation.$folder.withValue(temp.url) {
            (StoredNode(name: "z", backing: .userDefaults(suite: "docpromise.s", key: "zeta"), defaultValue: 0),
             StoredNode(name: "a", backing: .userDefaults(suite: "docpromise.s", key: "alpha"), defaultValue: ""),
             StoredNode(name: "m", backing: .userDefaults(suite: "docpromise.s", key: "mid"), defaultValue: false))
        }
        z.wrappedValue = 3
        a.wrappedValue = "x"
        m.wrappedValue = true
        let file = temp.file("docpromise.s.plist")
        let dict = try #require(DocPromiseFiles.dictionary(file))
        #expect(dict.keys == ["alpha", "mid", "zeta"])
        #expect(dict["zeta"] == .int(3))
        #expect(dict["alpha"] == .string("x"))
        #expect(dict["mid"] == .bool(true))
        #expect(z.suite != nil)
        #expect(z.suite === a.suite && a.suite === m.suite)
        #expect(z.suite?.url.standardizedFileURL.path == file.standardizedFileURL.path)
    }

    // PersistentBacking.md: "**When.** The value is read from the suite when the node is made (the default while the
    // key has none). A set that changes the value writes it, durably" — a value set by another process is there when a
    // node is made, and a value this process sets is there for the next process.
    @Test func valueCrossesProcessesBothWays() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let fresh = GraphStorageLocation.$folder.withValue(temp.url) { DocPromiseProbeCount() }
        #expect(fresh.count == 0)   // the default while the key has none
        let setter = try await DocPromiseFiles.runProbe(["set-count", temp.url.path, "41"])
        #expect(setter.termination == .exited(0), "\(setter.standardError)")
        let other = try TemporaryFolder(prefix: "docpromise")
        // A model made now, in a folder of its own that a probe wrote: reads 41.
        let otherSetter = try await DocPromiseFiles.runProbe(["set-count", other.url.path, "41"])
        #expect(otherSetter.termination == .exited(0))
        let model = GraphStorageLocation.$folder.withValue(other.url) { DocPromiseProbeCount() }
        #expect(model.count == 41)
        #expect(model.doubled == 82)
        model.count = 42
        let check = try await DocPromiseFiles.runProbe(["power-check", other.url.path])
        #expect(check.outputLines.contains("value count 42"), "\(check.standardOutput) \(check.standardError)")
    }

    // PersistentBacking.md: "A set that changes the value writes it, durably, under the suite's lock, merging only this
    // key into the newest file, so processes keep each other's keys."
    @Test func setMergesOnlyItsKeyKeepingAnotherProcessKeys() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let mine = GraphStorageLocation.$folder.withValue(temp.url) {
            StoredNode(name: "mine", backing: .userDefaults(suite: GraphProbeSuite.name, key: "mine"), defaultValue: 0)
        }
        let probe = try await DocPromiseFiles.runProbe(["set-count", temp.url.path, "7"])
        #expect(probe.termination == .exited(0))
        mine.wrappedValue = 1
        let dict = try #require(DocPromiseFiles.dictionary(GraphProbeSuite.file(in: temp.url)))
        #expect(dict["count"] == .int(7))
        #expect(dict["mine"] == .int(1))
        #expect(mine.storageError == nil)
    }

    // PersistentBacking.md: "A set of the current value writes nothing" (the file's inode, bytes and time stay).
    @Test func setOfCurrentValueWritesNothing() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let node = GraphStorageLocation.$folder.withValue(temp.url) {
            StoredNode(name: "n", backing: .userDefaults(suite: "docpromise.eq", key: "n"), defaultValue: 0)
        }
        node.wrappedValue = 5
        let file = temp.file("docpromise.eq.plist")
        let before = (try Data(contentsOf: file), DocPromiseFiles.inode(file), DocPromiseFiles.mtime(file))
        let heard = DocPromiseBox(0)
        let subscription = GraphSubscription({ node.wrappedValue }, onChange: { _ in heard.mutate { $0 += 1 } })
        for _ in 0..<5 { node.wrappedValue = 5 }
        #expect(try Data(contentsOf: file) == before.0)
        #expect(DocPromiseFiles.inode(file) == before.1)
        #expect(DocPromiseFiles.mtime(file) == before.2)
        #expect(heard.value == 0)
        node.wrappedValue = 6
        let after = try Data(contentsOf: file)
        #expect(DocPromiseFiles.inode(file) != before.1 || after != before.0)
        subscription.cancel()
    }

    // PersistentBacking.md: "Any `Codable` value ... stored as property-list values (a struct becomes a dictionary,
    // not a data blob)" and "**Values that are not `Equatable`.** A set is compared with what the suite holds by
    // encoding it: the same property-list value means no write and no change ... the node's own write, which the suite
    // reports back like any other, is not a second change."
    @Test func nonEquatableStructIsADictionaryAndItsWriteIsNotEchoed() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let node = GraphStorageLocation.$folder.withValue(temp.url) {
            StoredNode(name: "theme", backing: .userDefaults(suite: "docpromise.ne", key: "theme"),
                   defaultValue: DocPromiseTheme(name: "light", size: 12))
        }
        let suite = try #require(node.suite)
        let reported = DocPromiseBox(0)
        let watch = suite.observe { key in if key == "theme" { reported.mutate { $0 += 1 } } }
        let heard = DocPromiseBox(0)
        let subscription = GraphSubscription({ node.wrappedValue.name }, onChange: { _ in heard.mutate { $0 += 1 } })
        node.wrappedValue = DocPromiseTheme(name: "dark", size: 14)
        let file = temp.file("docpromise.ne.plist")
        let stored = try #require(DocPromiseFiles.dictionary(file)?["theme"])
        #expect(stored == .dictionary(["name": .string("dark"), "size": .int(14)]))
        // Wait until the suite has reported the write back, then check nobody heard a second change.
        #expect(await waitUntil(timeout: .seconds(3)) { reported.value >= 1 })
        for _ in 0..<20 { await Task.yield() }
        #expect(heard.value == 1)
        let inode = DocPromiseFiles.inode(file), bytes = try Data(contentsOf: file)
        node.wrappedValue = DocPromiseTheme(name: "dark", size: 14)   // equal by encoding
        #expect(DocPromiseFiles.inode(file) == inode)
        #expect(try Data(contentsOf: file) == bytes)
        #expect(heard.value == 1)
        subscription.cancel()
        watch.cancel()
    }

    // PersistentBacking.md: "`nil` removes the key, after which the default shows again."
    @Test func nilRemovesTheKeyAndTheDefaultShowsAgain() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let node = GraphStorageLocation.$folder.withValue(temp.url) {
            UserDefaultsStored<String?>(name: "opt", backing: .userDefaults(suite: "docpromise.nil", key: "opt"), defaultValue: "fallback")
        }
        #expect(node.wrappedValue == "fallback")
        node.wrappedValue = "set"
        let file = temp.file("docpromise.nil.plist")
        #expect(DocPromiseFiles.dictionary(file)?["opt"] == .string("set"))
        node.wrappedValue = nil
        let dict = try #require(DocPromiseFiles.dictionary(file))
        #expect(dict["opt"] == nil)
        // A node made afresh on the key shows the default again.
        let again = GraphStorageLocation.$folder.withValue(temp.url) {
            UserDefaultsStored<String?>(name: "opt", backing: .userDefaults(suite: "docpromise.nil", key: "opt"), defaultValue: "fallback")
        }
        #expect(again.wrappedValue == "fallback")
        // So does the node itself.
        #expect(node.wrappedValue == "fallback")
        // And a dependent sees the default, not nil.
        let shown = Computed(name: "shown") { _ in node.wrappedValue ?? "nil" }
        #expect(shown.wrappedValue == "fallback")
        node.wrappedValue = "again"
        #expect(shown.wrappedValue == "again")
        node.wrappedValue = nil
        #expect(shown.wrappedValue == "fallback")
    }

    // The same sentence inside a batch: the key is removed when the batch ends (not the default written), and
    // the node shows the default from the set on.
    @Test func nilInABatchRemovesTheKeyAtItsEnd() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let node = GraphStorageLocation.$folder.withValue(temp.url) {
            UserDefaultsStored<String?>(name: "opt", backing: .userDefaults(suite: "docpromise.nilbatch", key: "opt"), defaultValue: "fallback")
        }
        let file = temp.file("docpromise.nilbatch.plist")
        node.wrappedValue = "set"
        withGraphBatch {
            node.wrappedValue = nil
            #expect(node.wrappedValue == "fallback")
            #expect(DocPromiseFiles.dictionary(file)?["opt"] == .string("set"), "the file changes only when the batch ends")
        }
        #expect(node.wrappedValue == "fallback")
        let dict = try #require(DocPromiseFiles.dictionary(file))
        #expect(dict["opt"] == nil, "the batch wrote \(String(describing: dict["opt"])) instead of removing the key")
        // Set to nil, then to the default itself, in one batch: the default is written, as it was set.
        withGraphBatch {
            node.wrappedValue = nil
            node.wrappedValue = "fallback"
        }
        #expect(DocPromiseFiles.dictionary(file)?["opt"] == .string("fallback"))
    }

    // PersistentBacking.md: "A value of the wrong type in the file leaves the default."
    @Test func wrongTypeInTheFileLeavesTheDefault() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let file = temp.file("docpromise.wrong.plist")
        try PlistValue.dictionary(["n": .string("not a number"), "ok": .int(3)]).serialized(as: .binary).write(to: file)
        let (n, ok) = GraphStorageLocation.$folder.withValue(temp.url) {
            (StoredNode(name: "n", backing: .userDefaults(suite: "docpromise.wrong", key: "n"), defaultValue: 7),
             StoredNode(name: "ok", backing: .userDefaults(suite: "docpromise.wrong", key: "ok"), defaultValue: 0))
        }
        #expect(n.wrappedValue == 7)
        #expect(ok.wrappedValue == 3)
    }

    // PersistentBacking.md: "**Other writers.** ... When the key of a node changes, the node reloads it and, if the
    // value differs, marks its dependents stale and notifies observers, exactly as a local set would."
    @Test func anotherProcessSetReachesNodesDependentsAndObservers() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let model = GraphStorageLocation.$folder.withValue(temp.url) { DocPromiseProbeCount() }
        #expect(model.doubled == 0)
        let seen = DocPromiseBox<[Int]>([])
        let subscription = GraphSubscription({ model.doubled }, onChange: { value in seen.mutate { $0.append(value) } })
        let probe = try await DocPromiseFiles.runProbe(["set-count", temp.url.path, "21"])
        #expect(probe.termination == .exited(0))
        #expect(await waitUntil(timeout: .seconds(3)) { seen.value.contains(42) })
        #expect(model.count == 21)
        #expect(model.doubled == 42)
        subscription.cancel()
    }

    // PersistentBacking.md: "For a value several processes change from what it was, use the suite's locked
    // `update(forKey:)` through the node's `suite`; the node follows through its watcher" and "Four processes released
    // together, 250 locked increments each ... end at exactly 1,000, every value handed out once, and a node in the
    // test process follows".
    @Test func lockedIncrementsAcrossProcessesAndThisOne() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let model = GraphStorageLocation.$folder.withValue(temp.url) { DocPromiseProbeCount() }
        let faults = try ProcessFaults(program: "graph-probe", deadline: .seconds(20))
        let suite = try #require(model.$count.suite)
        let local = Task.detached { () -> [Int] in
            var values: [Int] = []
            for _ in 0..<40 {
                values.append(try suite.update(forKey: "count") { value -> Int in
                    let next = (value?.intValue ?? 0) + 1
                    value = .int(next)
                    return next
                })
            }
            return values
        }
        let children = try await faults.runTogether(Array(repeating: ["increment", temp.url.path, "40"], count: 2))
        let all = try ProcessFaults.incrementValues(children) + (try await local.value)
        #expect(all.sorted() == Array(1...120))
        #expect(DocPromiseFiles.dictionary(GraphProbeSuite.file(in: temp.url))?["count"] == .int(120))
        #expect(await waitUntil(timeout: .seconds(3)) { model.count == 120 })
        #expect(model.doubled == 240)
    }

    // PersistentBacking.md: "Four processes setting 100 nodes of keys of their own each, released together, keep all
    // 400 keys with their values: a set merges its key into the newest file under the suite's lock."
    @Test func processesSettingKeysOfTheirOwnKeepThemAll() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let faults = try ProcessFaults(program: "graph-probe", deadline: .seconds(20))
        _ = try await faults.runTogether((1...3).map { ["set-keys", temp.url.path, "\($0)", "25"] })
        let dict = try #require(DocPromiseFiles.dictionary(GraphProbeSuite.file(in: temp.url)))
        for process in 1...3 {
            for index in 1...25 {
                #expect(dict[GraphProbeSuite.ownKey(process: process, index: index)] == .int(index), "p\(process) k\(index)")
            }
        }
    }

    // PersistentBacking.md: "a probe setting `count` to its value + 1 in a loop (printing `ready <n>` after each set
    // returns) is killed with SIGKILL at a random moment ...: the file always parses and holds the last value reported
    // set or the next one, never an older one, and the next writer removes what a killed write left."
    @Test func killedWriterLeavesTheLastValueOrTheNextAndTheNextWriterCleansUp() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let clean = try TemporaryFolder(prefix: "docpromise")
        _ = try await DocPromiseFiles.runProbe(["set-count", clean.url.path, "1"])
        let cleanEntries = try clean.entries()
        let faults = try ProcessFaults(program: "graph-probe", deadline: .seconds(20))
        try await faults.killAtRandomMoments(label: "DocPromise set-loop", trials: 6, maxPause: .milliseconds(20),
                                             arguments: { _ in ["set-loop", temp.url.path] }) { kill in
            let reported = kill.outputLines.compactMap { line -> Int? in
                guard line.hasPrefix("ready ") else { return nil }
                return Int(line.dropFirst(6))
            }.max()
            let value = DocPromiseFiles.dictionary(GraphProbeSuite.file(in: temp.url))?["count"]?.intValue
            let last = try #require(reported, "\(kill)")
            #expect(value == last || value == last + 1, "\(kill): file holds \(String(describing: value)), last reported \(last)")
        }
        let next = try await DocPromiseFiles.runProbe(["set-count", temp.url.path, "1"])
        #expect(next.termination == .exited(0))
        #expect(try temp.entries() == cleanEntries)
    }

    // PersistentBacking.md: "**A full disk** (a file-size limit in the probe): the set fails with `fileError ==
    // .diskFull`, the file keeps the previous value byte for byte, and no temporary file is left."
    @Test func fullDiskFailsAsDiskFullAndKeepsTheFile() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let first = try await DocPromiseFiles.runProbe(["set-count", temp.url.path, "3"])
        #expect(first.termination == .exited(0))
        let file = GraphProbeSuite.file(in: temp.url)
        let bytes = try Data(contentsOf: file), entries = try temp.entries()
        let faults = try ProcessFaults(program: "graph-probe", deadline: .seconds(20))
        let full = try await faults.runWithFileSizeLimit(4096, ["set-text", temp.url.path, "20000"])
        #expect(full.termination == .exited(1))
        #expect(full.standardError.contains("error: diskFull"), "\(full.standardError)")
        #expect(try Data(contentsOf: file) == bytes)
        #expect(try temp.entries() == entries)
    }

    // PersistentBacking.md: "**A read-only folder** (the probe as an unprivileged user, when the tests run as root):
    // the set fails with `.permissionDenied` and no crash; the file is unchanged."
    @Test(.enabled(if: ProcessFaults.canRunUnprivileged)) func readOnlyFolderFailsAsPermissionDenied() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let folder = temp.folder("prefs")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let first = try await DocPromiseFiles.runProbe(["set-count", folder.path, "3"])
        #expect(first.termination == .exited(0))
        let file = GraphProbeSuite.file(in: folder)
        let bytes = try Data(contentsOf: file)
        try ProcessFaults.makeReadOnly(folder, files: [file], in: temp)
        let faults = try ProcessFaults(program: "graph-probe", deadline: .seconds(20))
        let denied = try await faults.runUnprivileged(["set-count", folder.path, "4"])
        #expect(denied.termination == .exited(1))
        #expect(denied.standardError.contains("error: permissionDenied"), "\(denied.standardError)")
        #expect(try Data(contentsOf: file) == bytes)
    }

    // PersistentBacking.md: "**Errors.** A setter cannot throw, so a failed encode, decode or write is ... kept in
    // `$node.storageError`, whose `fileError` is FileStorageKit's case ... when the file was the problem; the node keeps
    // its value in memory. Setting that same value again retries the write ..., and a success clears `storageError`."
    @Test func failedWriteIsKeptAndTheSameValueRetries() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let folder = temp.folder("prefs"), aside = temp.folder("aside")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let node = GraphStorageLocation.$folder.withValue(folder) {
            StoredNode(name: "n", backing: .userDefaults(suite: "docpromise.err", key: "n"), defaultValue: 0)
        }
        node.wrappedValue = 1
        #expect(node.storageError == nil)
        // The folder becomes a plain file: no write can succeed.
        try FileManager.default.moveItem(at: folder, to: aside)
        try Data("x".utf8).write(to: temp.file("prefs"))
        node.wrappedValue = 2
        let error = node.storageError
        #expect(error != nil)
        #expect(error?.fileError != nil)
        #expect(error?.key == "n")
        #expect(node.wrappedValue == 2)
        // Give the folder back, set the same value: the write is retried and the error cleared.
        try FileManager.default.removeItem(at: temp.file("prefs"))
        try FileManager.default.moveItem(at: aside, to: folder)
        node.wrappedValue = 2
        #expect(node.storageError == nil)
        #expect(DocPromiseFiles.dictionary(folder.appendingPathComponent("docpromise.err.plist"))?["n"] == .int(2))
    }

    // PersistentBacking.md: "`.userDefaults(key:)` uses the suite `GraphStorageLocation.standardSuiteName`, else the
    // program's name ... A node reads both once, when it is made".
    @Test func standardSuiteAndFolderAreReadOnceWhenTheNodeIsMade() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let node = GraphStorageLocation.$folder.withValue(temp.url) {
            GraphStorageLocation.$standardSuiteName.withValue("docpromise-standard") {
                StoredNode(name: "theme", backing: .userDefaults(key: "theme"), defaultValue: "light")
            }
        }
        node.wrappedValue = "dark"   // outside the bindings
        #expect(DocPromiseFiles.dictionary(temp.file("docpromise-standard.plist"))?["theme"] == .string("dark"))
        let other = try TemporaryFolder(prefix: "docpromise")
        let unnamed = GraphStorageLocation.$folder.withValue(other.url) {
            StoredNode(name: "theme", backing: .userDefaults(key: "theme"), defaultValue: "light")
        }
        unnamed.wrappedValue = "dark"
        #expect(try other.entries().contains(DefaultsSuite.programName + ".plist"))
    }

    // PersistentBacking.md: "Code written against swift-state-graph's persistence API compiles here and keeps its
    // values in the same suites as `@GraphStored(backed:)`" and "`@GraphUserDefault`'s `$name` is the wrapper itself
    // (the same object each time), reading and writing like the node (`$theme.wrappedValue`), and its `onDidSet` runs
    // once per change (not for an equal set)."
    @Test func swiftStateGraphSpellingsShareSuites() throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let settings = GraphStorageLocation.$folder.withValue(temp.url) { DocPromiseSettings() }
        #expect(settings.$theme === settings.$theme)
        let calls = DocPromiseBox<[String]>([])
        settings.$theme.onDidSet { old, new in calls.mutate { $0.append("\(old)->\(new)") } }
        settings.$theme.wrappedValue = "dark"
        settings.theme = "dark"
        settings.$theme.wrappedValue = "dark"
        settings.theme = "light"
        #expect(calls.value == ["light->dark", "dark->light"])
        settings.theme = "dark"
        settings.editor = DocPromiseEditorPreferences(fontSize: 16)
        settings.named = 9
        let peer = GraphStorageLocation.$folder.withValue(temp.url) {
            UserDefaultsStored(suite: "docpromise.app", key: "theme", defaultValue: "light")
        }
        #expect(peer.wrappedValue == "dark")
        let same = GraphStorageLocation.$folder.withValue(temp.url) {
            StoredNode(name: "t", backing: .userDefaults(suite: "docpromise.app", key: "theme"), defaultValue: "light")
        }
        #expect(same.wrappedValue == "dark")
        let dict = try #require(DocPromiseFiles.dictionary(temp.file("docpromise.app.plist")))
        #expect(dict["theme"] == .string("dark"))
        #expect(dict["editor"] == .dictionary(["fontSize": .int(16)]))
        #expect(dict["k"] == .int(9))
        #expect(settings.$named.name == "node name")
    }

    // PersistentBacking.md: "Inside `withGraphBatch`, a suite-backed node's writes are held and written when the
    // outermost batch ends ... Until the batch ends, the file holds the old values" and "another node on the same keys
    // (another model in this process ...) never shows half a batch: an observer of `theme` and `font` sees both old or
    // both new."
    @Test func batchesAreWrittenAtTheEndAndSeenWhole() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let writer = GraphStorageLocation.$folder.withValue(temp.url) { DocPromisePair() }
        let reader = GraphStorageLocation.$folder.withValue(temp.url) { DocPromisePair() }
        let file = temp.file("docpromise.pair.plist")
        let pairs = DocPromiseBox<[[Int]]>([])
        let subscription = GraphSubscription({ [reader.theme, reader.font] }, onChange: { pair in pairs.mutate { $0.append(pair) } })
        for round in 1...25 {
            withGraphBatch {
                writer.theme = round
                withGraphBatch { writer.font = round }
                let held = DocPromiseFiles.dictionary(file)
                #expect(held?["theme"]?.intValue ?? 0 == round - 1, "round \(round): the file has the batch's value before its end")
                #expect(held?["font"]?.intValue ?? 0 == round - 1, "round \(round)")
            }
            #expect(DocPromiseFiles.dictionary(file)?["theme"] == .int(round))
            #expect(DocPromiseFiles.dictionary(file)?["font"] == .int(round))
        }
        #expect(await waitUntil(timeout: .seconds(3)) { reader.theme == 25 && reader.font == 25 })
        for pair in pairs.value { #expect(pair[0] == pair[1], "torn pair \(pair)") }
        subscription.cancel()
    }

    // PersistentBacking.md: "a crash inside the batch writes none of it."
    @Test func crashInsideABatchWritesNoneOfIt() async throws {
        let temp = try TemporaryFolder(prefix: "docpromise")
        let path = temp.url.path
        let seed = GraphStorageLocation.$folder.withValue(temp.url) { DocPromisePair() }
        seed.theme = 1
        seed.font = 1
        let before = try Data(contentsOf: temp.file("docpromise.pair.plist"))
        await #expect(processExitsWith: .failure) { [path = path as String] in
            let model = GraphStorageLocation.$folder.withValue(URL(fileURLWithPath: path, isDirectory: true)) { DocPromisePair() }
            withGraphBatch {
                model.theme = 2
                model.font = 2
                abort()
            }
        }
        #expect(try Data(contentsOf: temp.file("docpromise.pair.plist")) == before)
    }
}

// MARK: - ObservingNodes.md

@Suite struct DocPromiseObservingNodesTests {
    // ObservingNodes.md: "`withGraphTrackingGroup { reads }` | inside a scope: runs now, and again after every change of
    // what its last run read" and "the groups and maps made inside it keep reacting until the token is cancelled or
    // released, which ends them all (nested ones too)".
    @Test @MainActor func groupRunsNowAndAfterChangesUntilCancelled() async throws {
        let a = Stored(name: "a", wrappedValue: 0), sentinel = Stored(name: "s", wrappedValue: 0)
        var runs: [Int] = [], sentinelRuns = 0
        let token = withGraphTracking {
            withGraphTrackingGroup { runs.append(a.wrappedValue) }
        }
        let sentinelToken = withGraphTracking { withGraphTrackingGroup { _ = sentinel.wrappedValue; sentinelRuns += 1 } }
        #expect(runs == [0])
        a.wrappedValue = 1
        #expect(await docPromiseWaitOnMain { runs == [0, 1] })
        token.cancel()
        a.wrappedValue = 2
        sentinel.wrappedValue = 1
        #expect(await docPromiseWaitOnMain { sentinelRuns == 2 })
        for _ in 0..<10 { await Task.yield() }
        #expect(runs == [0, 1])
        sentinelToken.cancel()
    }

    // ObservingNodes.md: "Writes made before that task starts are coalesced into its one run, which reads the newest
    // values, and a write while it runs makes it run again, so nothing is missed."
    @Test @MainActor func writesBeforeTheRunAreCoalesced() async throws {
        let a = Stored(name: "a", wrappedValue: 0)
        var runs: [Int] = []
        let token = withGraphTracking { withGraphTrackingGroup { runs.append(a.wrappedValue) } }
        for i in 1...10 { a.wrappedValue = i }
        #expect(await docPromiseWaitOnMain { runs.count >= 2 })
        for _ in 0..<20 { await Task.yield() }
        #expect(runs == [0, 10])
        token.cancel()
    }

    // ObservingNodes.md: "set up on the main actor, it runs on the main actor whatever thread wrote".
    @Test @MainActor func groupSetUpOnTheMainActorRunsThereForWritesFromOtherThreads() async throws {
        let a = Stored(name: "a", wrappedValue: 0)
        var onMain: [Bool] = []
        let token = withGraphTracking { withGraphTrackingGroup { _ = a.wrappedValue; onMain.append(Thread.isMainThread) } }
        #expect(await DocPromiseFiles.onThread { a.wrappedValue = 1 })
        #expect(await docPromiseWaitOnMain { onMain.count == 2 })
        #expect(Set(onMain).count == 1, "the run for another thread's write is on the isolation of the first run")
        token.cancel()
    }

    // ObservingNodes.md: "`withGraphTrackingMap { projection } onChange: { value in }` | inside a scope: passes the
    // projection to `onChange` now and whenever it changes (`DistinctFilter`); `filter:` takes `PassthroughFilter`".
    @Test @MainActor func mapPassesDistinctProjections() async throws {
        let a = Stored(name: "a", wrappedValue: 0), sentinel = Stored(name: "s", wrappedValue: 0)
        var distinct: [Bool] = [], passthrough: [Bool] = [], sentinelRuns = 0
        let token = withGraphTracking {
            withGraphTrackingMap { a.wrappedValue % 2 == 0 } onChange: { distinct.append($0) }
            withGraphTrackingMap({ a.wrappedValue % 2 == 0 }, filter: PassthroughFilter(), onChange: { passthrough.append($0) })
            withGraphTrackingGroup { _ = sentinel.wrappedValue; sentinelRuns += 1 }
        }
        #expect(distinct == [true])
        a.wrappedValue = 2
        #expect(await docPromiseWaitOnMain { passthrough.count == 2 })
        a.wrappedValue = 3
        #expect(await docPromiseWaitOnMain { passthrough.count == 3 })
        sentinel.wrappedValue = 1
        #expect(await docPromiseWaitOnMain { sentinelRuns == 2 })
        #expect(distinct == [true, false])
        #expect(passthrough == [true, true, false])
        token.cancel()
    }

    final class DocPromiseModel: Sendable {
        @GraphStored var value: Int = 0
    }

    final class DocPromiseDeinitFlag: Sendable {
        let flag: DocPromiseBox<Bool>
        init(_ flag: DocPromiseBox<Bool>) { self.flag = flag }
        deinit { flag.value = true }
    }

    // ObservingNodes.md: "`from: model, map:` holds the model weakly and ends with it" and a released token "lets go of
    // their closures at once".
    @Test @MainActor func mapFromHoldsTheModelWeakly() async throws {
        var model: DocPromiseModel? = DocPromiseModel()
        weak let weakModel = model
        let released = DocPromiseBox(false)
        var seen: [Int] = []
        let token = withGraphTracking {
            let marker = DocPromiseDeinitFlag(released)
            withGraphTrackingMap(from: model!, map: { $0.value }, onChange: { seen.append($0); _ = marker })
        }
        #expect(seen == [0])
        model!.value = 1
        #expect(await docPromiseWaitOnMain { seen == [0, 1] })
        model = nil
        #expect(weakModel == nil)
        var token2: AnyCancellable? = withGraphTracking {
            let marker = DocPromiseDeinitFlag(released)
            withGraphTrackingGroup { _ = marker }
        }
        _ = token2
        let released2 = DocPromiseBox(false)
        token2 = withGraphTracking {
            let marker = DocPromiseDeinitFlag(released2)
            withGraphTrackingGroup { _ = marker }
        }
        token2 = nil
        #expect(released2.value, "releasing the token lets go of the closures at once")
        token.cancel()
    }

    // ObservingNodes.md: "A run that writes a node it read is not run again for that write (other scopes are)."
    @Test @MainActor func aRunIsNotRerunForItsOwnWrite() async throws {
        let a = Stored(name: "a", wrappedValue: 0)
        var writerRuns = 0, otherRuns: [Int] = []
        let token = withGraphTracking {
            withGraphTrackingGroup {
                writerRuns += 1
                if a.wrappedValue < 100 { a.wrappedValue += 100 }
            }
            withGraphTrackingGroup { otherRuns.append(a.wrappedValue) }
        }
        #expect(await docPromiseWaitOnMain { otherRuns.last == 100 })
        for _ in 0..<20 { await Task.yield() }
        #expect(writerRuns == 1)
        token.cancel()
    }

    // ObservingNodes.md: "Each run cancels the scopes its previous run made inside it and makes them again." and
    // "Outside any `withGraphTracking` scope a group or map does nothing."
    @Test @MainActor func nestedScopesAreRemadeEachRunAndNothingRunsOutsideAScope() async throws {
        let outer = Stored(name: "outer", wrappedValue: 0), inner = Stored(name: "inner", wrappedValue: 0)
        var innerRuns = 0
        let token = withGraphTracking {
            withGraphTrackingGroup {
                _ = outer.wrappedValue
                withGraphTrackingGroup { _ = inner.wrappedValue; innerRuns += 1 }
            }
        }
        #expect(innerRuns == 1)
        for i in 1...3 {
            outer.wrappedValue = i
            #expect(await docPromiseWaitOnMain { innerRuns == 1 + i })
        }
        inner.wrappedValue = 1
        #expect(await docPromiseWaitOnMain { innerRuns >= 5 })
        for _ in 0..<20 { await Task.yield() }
        #expect(innerRuns == 5, "only the newest inner scope reacts")
        token.cancel()
        var ranOutside = false
        withGraphTrackingGroup { ranOutside = true }
        withGraphTrackingMap { outer.wrappedValue } onChange: { _ in ranOutside = true }
        outer.wrappedValue = 99
        for _ in 0..<20 { await Task.yield() }
        #expect(!ranOutside)
    }

    // ObservingNodes.md: "`withGraphObservationTracking { reads } onChange: { }` | runs the closure, and calls
    // `onChange` once, the first time one of the nodes it read changes".
    @Test func observationTrackingCallsOnChangeOnce() throws {
        let a = Stored(name: "a", wrappedValue: 0), b = Stored(name: "b", wrappedValue: 0)
        let calls = DocPromiseBox(0)
        let result = withGraphObservationTracking { a.wrappedValue + 1 } onChange: { calls.mutate { $0 += 1 } }
        #expect(result == 1)
        b.wrappedValue = 1
        #expect(calls.value == 0)
        a.wrappedValue = 1
        a.wrappedValue = 2
        #expect(calls.value == 1)
    }

    // ObservingNodes.md: "`GraphSubscription({ reads } , onChange: { value in })` | runs the closure now and again after
    // each change of what it read (recorded afresh each run), until `cancel()`" and "The other observers ... run on the
    // thread that made the change, after the change has reached every node downstream, so an observer that reads a
    // computed node gets its new value".
    @Test func subscriptionFollowsItsReadsOnTheWritingThread() async throws {
        let useLeft = Stored(name: "useLeft", wrappedValue: true)
        let left = Stored(name: "left", wrappedValue: 1), right = Stored(name: "right", wrappedValue: 10)
        let doubled = Computed(name: "doubled") { _ in left.wrappedValue * 2 }
        let seen = DocPromiseBox<[Int]>([]), threads = DocPromiseBox<[Bool]>([]), downstream = DocPromiseBox<[Int]>([])
        let writer = DocPromiseBox<pthread_t?>(nil)
        let subscription = GraphSubscription({ useLeft.wrappedValue ? left.wrappedValue : right.wrappedValue }, onChange: { value in
            seen.mutate { $0.append(value) }
            threads.mutate { $0.append(pthread_equal(pthread_self(), writer.value!) != 0) }
            downstream.mutate { $0.append(doubled.wrappedValue) }
        })
        #expect(seen.value == [])
        #expect(await DocPromiseFiles.onThread { writer.value = pthread_self(); left.wrappedValue = 2 })
        #expect(seen.value == [2])
        #expect(downstream.value.last == 4)
        #expect(await DocPromiseFiles.onThread { writer.value = pthread_self(); useLeft.wrappedValue = false })
        #expect(seen.value == [2, 10])
        #expect(await DocPromiseFiles.onThread { writer.value = pthread_self(); left.wrappedValue = 3 })
        #expect(seen.value == [2, 10], "no longer read")
        #expect(threads.value.dropFirst().allSatisfy { $0 })
        subscription.cancel()
        right.wrappedValue = 11
        #expect(seen.value == [2, 10])
        #expect(subscription.isCancelled)
    }

    // ObservingNodes.md: "`node.values()` | an `AsyncStream` of the value now and after each change ..., the newest 64
    // kept".
    @Test func valuesStreamKeepsTheNewest64() async throws {
        let a = Stored(name: "a", wrappedValue: 0)
        let stream = a.values()
        for i in 1...200 { a.wrappedValue = i }
        var got: [Int] = []
        for await value in stream {
            got.append(value)
            if value == 200 { break }
        }
        #expect(got.last == 200)
        #expect(got.count <= 64)
        #expect(got.count == 64, "\(got.count) values kept")
        #expect(got == Array(137...200))
    }

    // ObservingNodes.md: "`node.observe()` ...: the value now, then one per run of a tracking scope (coalesced ...),
    // every value kept until read".
    @Test func observeGivesTheValueNowThenChanges() async throws {
        let a = Stored(name: "a", wrappedValue: 5)
        let stream = a.observe()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 5)
        a.wrappedValue = 6
        #expect(await iterator.next() == 6)
        a.wrappedValue = 7
        #expect(await iterator.next() == 7)
    }

    // ObservingNodes.md: "`GraphTrackings { reads }`, `GraphTrackings.untilFinished { .next(x) or .finish }` | ... the
    // value now, then one per change of what the last run read ...; it ends at `.finish`".
    @Test func graphTrackingsEndsAtFinish() async throws {
        let a = Stored(name: "a", wrappedValue: 0)
        let sequence = GraphTrackings<Int, Never>.untilFinished { a.wrappedValue < 3 ? .next(a.wrappedValue) : .finish }
        let ended = DocPromiseBox(false)
        let collector = Task { var values: [Int] = []; for await v in sequence { values.append(v) }; ended.value = true; return values }
        var step = 0
        let deadline = ContinuousClock.now + .seconds(5)
        // Write the next value only once the previous one could have been read; the sequence ends at 3.
        while step < 3 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            step += 1
            a.wrappedValue = step
        }
        // A sequence that missed the change to 3 would never end: fail, naming it, rather than wait forever.
        let finished = await waitUntil(timeout: .seconds(60)) { ended.value }
        #expect(finished, "the sequence did not end after a became \(a.wrappedValue)")
        guard finished else { collector.cancel(); return }
        let values = await collector.value
        #expect(values.first == 0)
        #expect(values == values.sorted())
        #expect(!values.contains(3))
    }

    // ObservingNodes.md: "`withObservationTracking { model.total } onChange: { }` | Observation works as for an
    // `@Observable` class" and "Observation's own `onChange` is likewise called after the value was set, not before."
    @Test func observationOnChangeRunsAfterTheSet() throws {
        let a = Stored(name: "a", wrappedValue: 1)
        let total = Computed(name: "total") { _ in a.wrappedValue * 10 }
        let seenInOnChange = DocPromiseBox<[Int]>([])
        _ = withObservationTracking { total.wrappedValue } onChange: {
            seenInOnChange.mutate { $0.append(a.wrappedValue) }
        }
        a.wrappedValue = 2
        #expect(seenInOnChange.value == [2])
    }

    // ObservingNodes.md: "`withGraphBatch { several writes }` | every write takes effect at once, but observers are
    // notified when the batch ends, each once".
    @Test func batchNotifiesEachObserverOnceAtTheEnd() throws {
        let a = Stored(name: "a", wrappedValue: 0), b = Stored(name: "b", wrappedValue: 0)
        let heard = DocPromiseBox<[[Int]]>([])
        let subscription = GraphSubscription({ [a.wrappedValue, b.wrappedValue] }, onChange: { v in heard.mutate { $0.append(v) } })
        withGraphBatch {
            a.wrappedValue = 1
            #expect(a.wrappedValue == 1)
            b.wrappedValue = 1
            a.wrappedValue = 2
            #expect(heard.value.count == 0)
        }
        #expect(heard.value == [[2, 1]])
        subscription.cancel()
    }

    // ObservingNodes.md: "`model.$flag.binding` | a get/set pair (`GraphBinding`) for UI code".
    @Test func bindingReadsAndWritesTheNode() {
        let flag = Stored(name: "flag", wrappedValue: false)
        let binding = flag.binding
        #expect(binding.value == false)
        binding.value = true
        #expect(flag.wrappedValue == true)
        flag.wrappedValue = false
        #expect(binding.value == false)
    }
}

// MARK: - ThreadsAndCycles.md

final class DocPromiseSendableModel: Sendable {   // compiles only if nodes of Sendable values are Sendable
    @GraphStored var count: Int = 0
    @GraphStored var name: String = ""
}

final class DocPromiseDeinitToucher: @unchecked Sendable {
    let read: Stored<Int>, write: Stored<Int>
    init(read: Stored<Int>, write: Stored<Int>) { self.read = read; self.write = write }
    deinit { write.wrappedValue = read.wrappedValue + 1 }
}

@Suite struct DocPromiseThreadsAndCyclesTests {
    // ThreadsAndCycles.md: "Any thread may read and write any node." and "no reader gets a value computed from a mix of
    // old and new inputs" (a diamond read from two threads while two threads write).
    @Test func diamondReadersNeverSeeMixedInputs() async throws {
        let a = Stored(name: "a", wrappedValue: 0)
        let b = Computed(name: "b") { _ in a.wrappedValue * 2 }
        let c = Computed(name: "c") { _ in a.wrappedValue * 3 }
        let d = Computed(name: "d") { _ in b.wrappedValue + c.wrappedValue }
        let mixed = DocPromiseBox(0)
        let e = Computed(name: "e") { _ in
            let x = a.wrappedValue, y = b.wrappedValue
            if y != 2 * x { mixed.mutate { $0 += 1 } }
            return y
        }
        let bad = DocPromiseBox<[Int]>([])
        let stop = DocPromiseBox(false)
        let writers = (0..<2).map { w in
            Task { await DocPromiseFiles.onThread {
                for i in 0..<3_000 { a.wrappedValue = i * 2 + w }
                stop.value = true
            } }
        }
        let readers = (0..<2).map { _ in
            Task { await DocPromiseFiles.onThread {
                while !stop.value {
                    let v = d.wrappedValue
                    if v % 5 != 0 { bad.mutate { $0.append(v) } }
                    _ = e.wrappedValue
                }
            } }
        }
        for task in writers + readers { #expect(await task.value) }
        #expect(bad.value.isEmpty, "\(bad.value.prefix(5))")
        a.wrappedValue = 1_000_000
        #expect(d.wrappedValue == 5_000_000)
        // A retried evaluation may read a mix once, but the value it commits never is one:
        #expect(e.wrappedValue == 2 * a.wrappedValue)
        _ = mixed.value
    }

    // ThreadsAndCycles.md: "A write marks before anyone can read" and "A rule runs on the reading thread".
    @Test func setIsVisibleDownstreamAtOnceAndRulesRunOnTheReader() async throws {
        let a = Stored(name: "a", wrappedValue: 0)
        let ruleThreads = DocPromiseBox<[pthread_t]>([])
        let b = Computed(name: "b") { _ in ruleThreads.mutate { $0.append(pthread_self()) }; return a.wrappedValue + 1 }
        #expect(b.wrappedValue == 1)
        let reader = DocPromiseBox<pthread_t?>(nil)
        let seen = DocPromiseBox<[Int]>([])
        #expect(await DocPromiseFiles.onThread {
            for i in 1...200 {
                a.wrappedValue = i
                seen.mutate { $0.append(b.wrappedValue) }
            }
        })
        #expect(seen.value == Array(2...201))
        ruleThreads.value = []
        a.wrappedValue = 500
        #expect(await DocPromiseFiles.onThread { reader.value = pthread_self(); _ = b.wrappedValue })
        #expect(ruleThreads.value.count == 1)
        if let r = reader.value, let t = ruleThreads.value.first { #expect(pthread_equal(r, t) != 0) }
    }

    // ThreadsAndCycles.md: "**Observers run on the writing thread** (or at the end of the writer's batch) and may write
    // nodes" and "a value that is replaced is released after the locks too (its `deinit` may do anything)".
    @Test func observersMayWriteAndReplacedValuesMayTouchTheGraph() async throws {
        let a = Stored(name: "a", wrappedValue: 0), mirror = Stored(name: "mirror", wrappedValue: 0)
        let subscription = GraphSubscription({ a.wrappedValue }, onChange: { v in mirror.wrappedValue = v * 10 })
        #expect(await DocPromiseFiles.onThread { a.wrappedValue = 4 })
        #expect(mirror.wrappedValue == 40)
        subscription.cancel()
        let read = Stored(name: "read", wrappedValue: 7), written = Stored(name: "written", wrappedValue: 0)
        let holder = Stored<DocPromiseDeinitToucher?>(name: "holder", wrappedValue: DocPromiseDeinitToucher(read: read, write: written))
        #expect(await DocPromiseFiles.onThread { holder.wrappedValue = nil })
        #expect(written.wrappedValue == 8)
        let model = DocPromiseSendableModel()
        #expect(await DocPromiseFiles.onThread { model.count = 3 })
        #expect(model.count == 3)
    }

    // ThreadsAndCycles.md: "the read that closes the cycle returns the **last value** of the node it read ..., and the
    // cycle is reported as a `GraphCycleError` naming the nodes in reading order, starting and ending with the node whose
    // read was cut short (`["a", "b", "a"]`, plus whether it spanned threads) ... in `$a.cycleError`" and the message
    // "StateGraph: cycle a -> b -> a: a rule reads a while a is being computed; a gave its last value to the read".
    @Test func cyclesOnOneThreadGiveTheLastValueAndAreReported() async throws {
        let finished = await DocPromiseFiles.onThread {
            let flag = Stored(name: "flag", wrappedValue: false)
            let selfHolder = DocPromiseBox<Computed<Int>?>(nil)
            let s = Computed(name: "s") { _ in flag.wrappedValue ? selfHolder.value!.wrappedValue + 1 : 1 }
            selfHolder.value = s
            #expect(s.wrappedValue == 1)
            flag.wrappedValue = true
            #expect(s.wrappedValue == 2)
            #expect(s.cycleError?.nodes == ["s", "s"])
            #expect(s.cycleError?.spansThreads == false)

            let aHolder = DocPromiseBox<Computed<Int>?>(nil)
            let b = Computed(name: "b") { _ in flag.wrappedValue ? aHolder.value!.wrappedValue + 10 : 0 }
            let a = Computed(name: "a") { _ in b.wrappedValue + 1 }
            aHolder.value = a
            flag.wrappedValue = false
            #expect(a.wrappedValue == 1)
            flag.wrappedValue = true
            #expect(a.wrappedValue == 12)
            let error = a.cycleError
            #expect(error?.nodes == ["a", "b", "a"])
            #expect(error?.spansThreads == false)
            #expect(error?.description == "cycle a -> b -> a: a rule reads a while a is being computed; a gave its last value to the read")
            #expect(GraphCycleErrors.reports.label == "StateGraph")
            // The graph stays usable.
            flag.wrappedValue = false
            #expect(a.wrappedValue == 1)

            // Three nodes.
            let xHolder = DocPromiseBox<Computed<Int>?>(nil)
            let z = Computed(name: "z") { _ in flag.wrappedValue ? xHolder.value!.wrappedValue : 0 }
            let y = Computed(name: "y") { _ in z.wrappedValue + 1 }
            let x = Computed(name: "x") { _ in y.wrappedValue + 1 }
            xHolder.value = x
            #expect(x.wrappedValue == 2)
            flag.wrappedValue = true
            #expect(x.wrappedValue == 4)
            #expect(x.cycleError?.nodes == ["x", "y", "z", "x"])
        }
        #expect(finished, "a cycle hung")
    }

    // ThreadsAndCycles.md: "**Across threads**, thread 1 computing `a` may read `b` while thread 2 computing `b` reads
    // `a` ... If the chain comes back to a node this thread is computing, it does not wait." (reported with
    // spansThreads, never a hang)
    @Test func crossThreadCyclesDoNotHang() async throws {
        let flag = Stored(name: "flag", wrappedValue: false)
        let rendezvous = DocPromiseRendezvous()
        let bHolder = DocPromiseBox<Computed<Int>?>(nil)
        let a = Computed(name: "a") { _ in
            guard flag.wrappedValue else { return 1 }
            rendezvous.arriveAndWait()
            return bHolder.value!.wrappedValue + 1
        }
        let b = Computed(name: "b") { _ in
            guard flag.wrappedValue else { return 1 }
            rendezvous.arriveAndWait()
            return a.wrappedValue + 1
        }
        bHolder.value = b
        #expect(a.wrappedValue == 1 && b.wrappedValue == 1)
        flag.wrappedValue = true
        let results = DocPromiseBox<[String: Int]>([:])
        async let one = DocPromiseFiles.onThread(timeout: .seconds(10)) { let v = a.wrappedValue; results.mutate { $0["a"] = v } }
        async let two = DocPromiseFiles.onThread(timeout: .seconds(10)) { let v = b.wrappedValue; results.mutate { $0["b"] = v } }
        #expect(await one)
        #expect(await two)
        let reported = [a.cycleError, b.cycleError].compactMap { $0 }
        #expect(!reported.isEmpty)
        #expect(reported.contains { $0.spansThreads })
        #expect(reported.allSatisfy { $0.nodes.first == $0.nodes.last && $0.nodes.count == 3 })
    }

    // ThreadsAndCycles.md: "Threads that merely wait for a busy node, with no cycle, mark the node ... and sleep" (no
    // false report).
    @Test func waitingForABusyNodeIsNotACycle() async throws {
        let a = Stored(name: "a", wrappedValue: 0)
        let entered = DocPromiseBox(0)
        let slow = Computed(name: "slow") { _ in
            entered.mutate { $0 += 1 }
            let deadline = ContinuousClock.now + .milliseconds(50)
            while ContinuousClock.now < deadline { usleep(500) }
            return a.wrappedValue + 1
        }
        let reader = Computed(name: "reader") { _ in slow.wrappedValue * 2 }
        let values = DocPromiseBox<[Int]>([])
        let threads = (0..<3).map { i in
            Task { await DocPromiseFiles.onThread { let v = i == 0 ? slow.wrappedValue * 2 : reader.wrappedValue; values.mutate { $0.append(v) } } }
        }
        for t in threads { #expect(await t.value) }
        #expect(values.value == [2, 2, 2])
        #expect(slow.cycleError == nil)
        #expect(reader.cycleError == nil)
    }

    // ThreadsAndCycles.md: "A node that has **no value yet** (its first evaluation is the one in the cycle) has nothing
    // to return: the program stops with a precondition failure ... rather than hang."
    @Test func cycleWithNoValueYetStopsTheProgram() async throws {
        await #expect(processExitsWith: .failure) {
            let holder = DocPromiseBox<Computed<Int>?>(nil)
            let b = Computed(name: "b") { _ in holder.value!.wrappedValue + 1 }
            let a = Computed(name: "a") { _ in b.wrappedValue + 1 }
            holder.value = a
            _ = a.wrappedValue
            exit(0)   // reached only if the cycle returned something
        }
    }
}

// MARK: - DeclaringNodes.md

final class DocPromiseDeclared: Sendable {
    @GraphStored var count: Int = 0
    @GraphStored var items: [String]
    @GraphStored(backed: .memory) var memory: Int = 0
    @GraphStored var optional: String?
    @GraphStored var token: String!
    @GraphStored var retries: Int! = 3
    @GraphComputed var displayName: String
    @GraphStored var userName: String = ""
    static let countLine = #line - 8

    init(items: [String]) {
        self.items = items
        self.$displayName = .init { [$userName] _ in
            $userName.wrappedValue.isEmpty ? "Anonymous User" : $userName.wrappedValue
        }
    }

    init(sharing other: DocPromiseDeclared) {
        $items = other.$items
        self.$displayName = .init { [$userName] _ in $userName.wrappedValue }
    }
}

final class DocPromiseObserved: @unchecked Sendable {
    let log = DocPromiseBox<[String]>([])
    @GraphStored var count: Int = 0 {
        willSet(next) { log.mutate { $0.append("will \(count)->\(next)") } }
        didSet(previous) { log.mutate { $0.append("did \(previous)->\(count)") } }
    }
}

struct DocPromisePoint {
    @GraphStored var x: Int = 0
    @GraphStored var y: Int = 0
}

struct DocPromiseSuitePoint {
    @GraphStored(backed: .userDefaults(suite: "docpromise.point", key: "x")) var x: Int = 0
}

enum DocPromiseStatics {
    @GraphStored static var shared: Int = 1
}

@GraphStored var docPromiseGlobal: Int = 5

final class DocPromiseObject: Sendable {}
final class DocPromiseEquatableObject: Equatable, Sendable {
    let id: Int
    init(id: Int) { self.id = id }
    static func == (l: DocPromiseEquatableObject, r: DocPromiseEquatableObject) -> Bool { l.id == r.id }
}

struct DocPromiseEnvKey: ComputedEnvironmentKey, Sendable {
    typealias Value = DocPromiseEnvKey
    var n: Int
}

extension ComputedEnvironmentValues {
    var docPromiseValue: DocPromiseEnvKey {
        get { self[DocPromiseEnvKey.self] ?? DocPromiseEnvKey(n: 0) }
        set { self[DocPromiseEnvKey.self] = newValue }
    }
}

@Suite struct DocPromiseDeclaringNodesTests {
    // DeclaringNodes.md: "`@GraphStored var count: Int = 0` | `let $count: Stored<Int> = .init(name: "count", wrappedValue:
    // 0)`, and `get`/`set` ... reading and writing `$count.wrappedValue`"; "`@GraphComputed var displayName: String` |
    // `let $displayName: Computed<String>`"; "`node.info` is a `NodeInfo`: the name and the `SourceLocation` ... for
    // macro-made nodes the property's declaration."
    @Test func macroNodesAreNamedAfterTheirPropertyAndDeclaration() {
        let model = DocPromiseDeclared(items: ["a"])
        let count: Stored<Int> = model.$count
        #expect(count.name == "count")
        model.count = 4
        #expect(model.$count.wrappedValue == 4)
        model.$count.wrappedValue = 5
        #expect(model.count == 5)
        #expect(model.$count.info.name == "count")
        #expect(model.$count.info.sourceLocation.line == UInt(DocPromiseDeclared.countLine))
        let display: Computed<String> = model.$displayName
        #expect(display.wrappedValue == "Anonymous User")
        model.userName = "Ann"
        #expect(model.displayName == "Ann")
        #expect(model.$memory.name == "memory")
        #expect(model.items == ["a"])
    }

    // DeclaringNodes.md: "The initializer may instead assign the node itself, to share another object's: `$items =
    // service.$items` (both objects then read and write one node)."; "**Optionals** may omit the value, which is
    // `nil`"; "**Implicitly unwrapped optionals** ...: the node is a `Stored<String?>` (`nil` without a value) ... and
    // `model.token == nil` still works."
    @Test func sharedNodesOptionalsAndImplicitlyUnwrapped() {
        let first = DocPromiseDeclared(items: ["x"])
        let second = DocPromiseDeclared(sharing: first)
        second.items.append("y")
        #expect(first.items == ["x", "y"])
        #expect(first.$items === second.$items)
        #expect(first.optional == nil)
        let token: Stored<String?> = first.$token
        #expect(token.wrappedValue == nil)
        #expect(first.token == nil)
        first.token = "t"
        let unwrapped: String = first.token
        #expect(unwrapped == "t")
        #expect(first.retries == 3)
    }

    // DeclaringNodes.md: "the macro folds them into its setter, `willSet` before the node's write and `didSet` after it,
    // on every assignment through the property, equal values included ... A write through the node
    // (`$count.wrappedValue = …`) runs neither; `$count.onDidSet { old, new in }` sees every set." and "(one handler per
    // node; a second replaces the first)".
    @Test func willSetDidSetAndOnDidSet() {
        let model = DocPromiseObserved()
        model.count = 1
        model.count = 1
        #expect(model.log.value == ["will 0->1", "did 0->1", "will 1->1", "did 1->1"])
        model.$count.wrappedValue = 2
        #expect(model.log.value.count == 4)
        let first = DocPromiseBox<[String]>([]), second = DocPromiseBox<[String]>([])
        model.$count.onDidSet { o, n in first.mutate { $0.append("\(o)->\(n)") } }
        model.$count.wrappedValue = 3
        model.$count.wrappedValue = 3
        #expect(first.value == ["2->3", "3->3"])
        model.$count.onDidSet { o, n in second.mutate { $0.append("\(o)->\(n)") } }
        model.count = 4
        #expect(first.value == ["2->3", "3->3"])
        #expect(second.value == ["3->4"])
    }

    // DeclaringNodes.md: "**Structs**: an instance property's setter is `nonmutating` (... `let p = Point(); p.x = 1`
    // compiles and copies share nodes), and ... the memberwise initializer takes the property (`Point()`, `Point(x:
    // 5)`)"; "**Static and top-level** properties: the node is a `static let` or a global `let`"; "**Suite-backed**
    // properties ...: the node is made on its declaration with the default ... in a class or a struct".
    @Test func structsStaticsGlobalsAndSuiteBackedStructs() throws {
        let p = DocPromisePoint()
        p.x = 1
        let copy = p
        copy.y = 2
        #expect(p.y == 2)
        #expect(p.$x === copy.$x)
        #expect(DocPromisePoint(x: 5).x == 5)
        #expect(DocPromisePoint(x: 5).$x !== p.$x)
        #expect(DocPromiseStatics.shared >= 1)
        let staticNode: Stored<Int> = DocPromiseStatics.$shared
        #expect(staticNode.name == "shared")
        let global: Stored<Int> = $docPromiseGlobal
        #expect(global.wrappedValue == docPromiseGlobal)
        let temp = try TemporaryFolder(prefix: "docpromise")
        let point = GraphStorageLocation.$folder.withValue(temp.url) { DocPromiseSuitePoint() }
        #expect(point.x == 0)
        point.x = 8
        #expect(DocPromiseFiles.dictionary(temp.file("docpromise.point.plist"))?["x"] == .int(8))
    }

    // DeclaringNodes.md: "**Reads record dependencies.** ... a branch that stops reading a node stops depending on it";
    // "**Writes only mark.** ... nothing is computed"; "**Reads compute, once.** ... in a diamond ... a change of A
    // computes B, C and D once each, and D sees the new B and the new C."
    @Test func dependenciesMarkingAndComputingOnce() {
        let useLeft = Stored(name: "useLeft", wrappedValue: true)
        let left = Stored(name: "left", wrappedValue: 1), other = Stored(name: "other", wrappedValue: 2)
        let runs = DocPromiseBox([String: Int]())
        let count: @Sendable (String) -> Void = { n in runs.mutate { $0[n, default: 0] += 1 } }
        let pick = Computed(name: "pick") { _ in count("pick"); return useLeft.wrappedValue ? left.wrappedValue : other.wrappedValue }
        #expect(pick.wrappedValue == 1)
        useLeft.wrappedValue = false
        #expect(pick.wrappedValue == 2)
        left.wrappedValue = 10
        _ = pick.wrappedValue
        #expect(runs.value["pick"] == 2, "no longer depends on left")

        let a = Stored(name: "A", wrappedValue: 1)
        let b = Computed(name: "B") { _ in count("B"); return a.wrappedValue * 2 }
        let c = Computed(name: "C") { _ in count("C"); return a.wrappedValue * 3 }
        let d = Computed(name: "D") { _ in count("D"); return b.wrappedValue + c.wrappedValue }
        #expect(d.wrappedValue == 5)
        a.wrappedValue = 2
        #expect(runs.value["B"] == 1 && runs.value["C"] == 1 && runs.value["D"] == 1, "a write computes nothing")
        #expect(d.wrappedValue == 10)
        #expect(d.wrappedValue == 10)
        #expect(runs.value["B"] == 2 && runs.value["C"] == 2 && runs.value["D"] == 2)
        let untracked = Computed<Int>(name: "untracked") { ctx in count("untracked"); return ctx.withoutTracking { a.wrappedValue } }
        #expect(untracked.wrappedValue == 2)
        a.wrappedValue = 3
        #expect(untracked.wrappedValue == 2)
    }

    // DeclaringNodes.md: "**Equal is unchanged.** Setting an `Equatable` value equal to the current one changes nothing:
    // no node is marked, nobody is notified ... Values that are not `Equatable` always count as changed in memory,
    // except objects: setting the same instance again changes nothing (another instance is a change; an `Equatable`
    // object compares with `==`)".
    @Test func equalIsUnchanged() {
        let heard = DocPromiseBox(0)
        let n = Stored(name: "n", wrappedValue: 1)
        let runs = DocPromiseBox(0)
        let dep = Computed(name: "dep") { _ in runs.mutate { $0 += 1 }; return n.wrappedValue }
        _ = dep.wrappedValue
        let s1 = GraphSubscription({ n.wrappedValue }, onChange: { _ in heard.mutate { $0 += 1 } })
        n.wrappedValue = 1
        _ = dep.wrappedValue
        #expect(heard.value == 0 && runs.value == 1)

        let theme = Stored(name: "theme", wrappedValue: DocPromiseTheme(name: "a", size: 1))
        let themeHeard = DocPromiseBox(0)
        let s2 = GraphSubscription({ theme.wrappedValue.size }, onChange: { _ in themeHeard.mutate { $0 += 1 } })
        theme.wrappedValue = DocPromiseTheme(name: "a", size: 1)
        #expect(themeHeard.value == 1, "a non-Equatable value always counts as changed")

        let object = DocPromiseObject()
        let objectNode = Stored(name: "object", wrappedValue: object)
        let objectHeard = DocPromiseBox(0)
        let s3 = GraphSubscription({ ObjectIdentifier(objectNode.wrappedValue) }, onChange: { _ in objectHeard.mutate { $0 += 1 } })
        let s3b = GraphSubscription({ _ = objectNode.wrappedValue; return 0 }, onChange: { _ in objectHeard.mutate { $0 += 100 } })
        objectNode.wrappedValue = object
        #expect(objectHeard.value == 0)
        objectNode.wrappedValue = DocPromiseObject()
        #expect(objectHeard.value == 101)

        let eq = Stored(name: "eq", wrappedValue: DocPromiseEquatableObject(id: 1))
        let eqHeard = DocPromiseBox(0)
        let s4 = GraphSubscription({ eq.wrappedValue.id }, onChange: { _ in eqHeard.mutate { $0 += 1 } })
        let s4b = GraphSubscription({ _ = eq.wrappedValue; return 0 }, onChange: { _ in eqHeard.mutate { $0 += 100 } })
        eq.wrappedValue = DocPromiseEquatableObject(id: 1)
        #expect(eqHeard.value == 0)
        [s1, s4].forEach { $0.cancel() }
        s2.cancel(); s3.cancel(); s3b.cancel(); s4b.cancel()
    }

    // DeclaringNodes.md: "`$items.unsafeModify { $0.append(x) }` changes the value in place and tells nobody: no
    // dependent is marked, no observer runs, no `onDidSet` (a suite-backed node still writes its suite)".
    @Test func unsafeModifyTellsNobodyButStillWritesTheSuite() throws {
        let items = Stored(name: "items", wrappedValue: [1])
        let countNode = Computed(name: "count") { _ in items.wrappedValue.count }
        #expect(countNode.wrappedValue == 1)
        let heard = DocPromiseBox(0), didSet = DocPromiseBox(0)
        let subscription = GraphSubscription({ items.wrappedValue.count }, onChange: { _ in heard.mutate { $0 += 1 } })
        items.onDidSet { _, _ in didSet.mutate { $0 += 1 } }
        items.unsafeModify { $0.append(2) }
        #expect(items.wrappedValue == [1, 2])
        #expect(countNode.wrappedValue == 1, "no dependent is marked")
        #expect(heard.value == 0)
        #expect(didSet.value == 0)
        subscription.cancel()

        let temp = try TemporaryFolder(prefix: "docpromise")
        let backed = GraphStorageLocation.$folder.withValue(temp.url) {
            StoredNode(name: "list", backing: .userDefaults(suite: "docpromise.um", key: "list"), defaultValue: [1])
        }
        backed.wrappedValue = [1, 2]
        backed.unsafeModify { $0.append(3) }
        #expect(DocPromiseFiles.dictionary(temp.file("docpromise.um.plist"))?["list"] == .array([.int(1), .int(2), .int(3)]))
    }

    // DeclaringNodes.md: "**The computed environment.** A rule reads process-wide values through
    // `context.environment` ... Reading one is not a dependency: changing it marks nothing stale, the next evaluation
    // reads the new value."
    @Test func computedEnvironmentIsNotADependency() {
        StateGraphGlobal.computedEnvironmentValues.withLock { $0.docPromiseValue = DocPromiseEnvKey(n: 1) }
        let a = Stored(name: "a", wrappedValue: 0)
        let node = Computed(name: "env") { ctx in a.wrappedValue + ctx.environment.docPromiseValue.n }
        #expect(node.wrappedValue == 1)
        StateGraphGlobal.computedEnvironmentValues.withLock { $0.docPromiseValue = DocPromiseEnvKey(n: 5) }
        #expect(node.wrappedValue == 1, "changing the environment marks nothing stale")
        a.wrappedValue = 1
        #expect(node.wrappedValue == 6)
    }

    // DeclaringNodes.md: "**Other ways to make a computed node**, swift-state-graph's: `Computed(name:rule:)`,
    // `Computed($stored)` and `Computed($computed)` (a read-only view), `Computed(constant:)`, and `$node.map { context,
    // value in … }` on either kind of node." and "Nodes can also be made without macros: `Stored(name:wrappedValue:)`,
    // `Stored(name:backing:defaultValue:)` and `Computed(name:_:)`." and "`Stored` and `Computed` conform to `Node`
    // (`Hashable` by identity".
    @Test func otherFormsAndIdentity() {
        let s = Stored(name: "s", wrappedValue: 2)
        let rule = Computed(name: "rule", rule: { _ in s.wrappedValue * 3 })
        let view = Computed(s), viewOfView = Computed(rule)
        let constant = Computed(constant: 9)
        let mapped = s.map { _, v in v + 1 }, mappedComputed = rule.map { _, v in -v }
        let memory = StoredNode(name: "m", backing: .memory, defaultValue: 4)
        let firstValues: [Int] = [rule.wrappedValue, view.wrappedValue, viewOfView.wrappedValue, constant.wrappedValue, mapped.wrappedValue,
                                  mappedComputed.wrappedValue, memory.wrappedValue]
        #expect(firstValues == [6, 2, 6, 9, 3, -6, 4])
        s.wrappedValue = 3
        let secondValues: [Int] = [rule.wrappedValue, view.wrappedValue, viewOfView.wrappedValue, mapped.wrappedValue, mappedComputed.wrappedValue]
        #expect(secondValues == [9, 3, 9, 4, -9])
        let twin = Stored(name: "s", wrappedValue: 3)
        #expect(s != twin)
        #expect(s == s)
        #expect(Set([s, twin, s]).count == 2)
    }

    // DeclaringNodes.md: "**The equality cut-off**, for nodes made with a descriptor: `Computed(descriptor: .any { … })`
    // ... When such a node computes a value equal to its last one, the nodes computed from it keep their values without
    // running their rules, however far down ... Observers and Observation are still told ... Plain `Computed { }` nodes
    // count every new value as a change".
    @Test func equalityCutOff() {
        let a = Stored(name: "a", wrappedValue: 1)
        let runs = DocPromiseBox([String: Int]())
        let count: @Sendable (String) -> Void = { n in runs.mutate { $0[n, default: 0] += 1 } }
        let parity = Computed<Int>(descriptor: .any { @Sendable (_: inout Computed<Int>.Context) -> Int in a.wrappedValue % 2 })
        let down1 = Computed(name: "down1") { _ in count("down1"); return parity.wrappedValue + 1 }
        let down2 = Computed(name: "down2") { _ in count("down2"); return down1.wrappedValue + 1 }
        #expect(down2.wrappedValue == 3)
        let heard = DocPromiseBox(0)
        let subscription = GraphSubscription({ parity.wrappedValue }, onChange: { (_: Int) in heard.mutate { $0 += 1 } })
        a.wrappedValue = 3   // parity stays 1
        #expect(down2.wrappedValue == 3)
        #expect(runs.value["down1"] == 1)
        // "The cut-off is one level deep: a plain node that reads such a dependent ... runs its rule again"
        // (the article said "however far down"; this black-box test found it was not, and the sentence was corrected).
        #expect(runs.value["down2"] == 2)
        #expect(heard.value == 1, "observers are still told")
        a.wrappedValue = 4
        #expect(down2.wrappedValue == 2)
        #expect(runs.value["down1"] == 2)
        subscription.cancel()
        // A plain computed node counts an equal value as a change.
        let plain = Computed(name: "plain") { _ in a.wrappedValue % 2 }
        let below = Computed(name: "below") { _ in count("below"); return plain.wrappedValue }
        _ = below.wrappedValue
        a.wrappedValue = 6
        _ = below.wrappedValue
        #expect(runs.value["below"] == 2)
    }
}
