// Black-box tests of what StateGraph's articles promise about `onDidSet` (the `@GraphUserDefault` wrapper's and a
// plain node's) and about `nil` on a suite-backed node: PersistentBacking.md, DeclaringNodes.md ("Hooks and quiet
// edits") and PortingFromSwiftStateGraph.md. Each test quotes the sentence it checks. A promise the code does not
// keep is wrapped in `withKnownIssue("DOC-PROMISE-FAILS: ...")`.
import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Models (all prefixed DocPromiseHooks)

/// `@unchecked`: a property wrapper's storage is a `var` (PersistentBacking.md says so).
final class DocPromiseHooksSettings: @unchecked Sendable {
    @GraphUserDefault("theme", suiteName: "hooks") var theme: String = "light"
    @GraphUserDefault("level", suiteName: "hooks") var level: Int = 0
    @GraphUserDefault("nick", suiteName: "hooks") var nick: String? = "anon"
}

/// The key `count` of the suite `probe`, the one `graph-probe set-count FOLDER N` sets.
final class DocPromiseHooksProbeCount: @unchecked Sendable {
    @GraphUserDefault("count", suiteName: "probe") var count: Int = 0
}

/// One handler call: old, new, and whether it ran on the thread that was expected.
struct DocPromiseHooksCall<Value: Sendable & Equatable>: Sendable, Equatable, CustomStringConvertible {
    let old: Value
    let new: Value
    var description: String { "\(old)->\(new)" }
}

/// A thread-safe log of handler calls.
final class DocPromiseHooksLog<Value: Sendable & Equatable>: Sendable {
    private let calls = Mutex<[DocPromiseHooksCall<Value>]>([])
    private let threads = Mutex<[UInt]>([])
    func append(_ old: Value, _ new: Value) {
        calls.withLock { $0.append(DocPromiseHooksCall(old: old, new: new)) }
        threads.withLock { $0.append(UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))) }
    }
    var all: [DocPromiseHooksCall<Value>] { calls.withLock { $0 } }
    var text: [String] { all.map(\.description) }
    var callThreads: [UInt] { threads.withLock { $0 } }

    /// Problems with "each call's old value being the previous call's new one" and "once per change" (old != new).
    func chainProblems(startingAt first: Value) -> [String] {
        var problems: [String] = []
        var previous = first
        for (index, call) in all.enumerated() {
            if call.old != previous { problems.append("call \(index) \(call): old is not the previous new \(previous)") }
            if call.old == call.new { problems.append("call \(index) \(call): an equal value told as a change") }
            previous = call.new
        }
        return problems
    }
}

enum DocPromiseHooksSupport {
    static func currentThread() -> UInt { UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) }

    static func suiteValue(_ folder: TemporaryFolder, suite: String = "hooks", key: String) -> PlistValue? {
        guard let data = try? Data(contentsOf: folder.file("\(suite).plist")),
              let value = try? PlistValue(parsing: data) else { return nil }
        return value.dictionaryValue?[key]
    }

    static func settings(_ folder: TemporaryFolder) -> DocPromiseHooksSettings {
        GraphStorageLocation.$folder.withValue(folder.url) { DocPromiseHooksSettings() }
    }

    static func outsideWrite(_ value: PlistValue?, key: String, suite: String = "hooks", in folder: TemporaryFolder) throws {
        try DefaultsSuite(suiteName: suite, folder: folder.url).set(value, forKey: key)
    }

    /// Runs `graph-probe set-count FOLDER n` (another process) and waits for it to finish.
    static func probeSetCount(_ folder: TemporaryFolder, _ n: Int) async throws {
        let probe = try ChildProcess.start(try ChildProcess.builtProgram("graph-probe"), ["set-count", folder.url.path, String(n)])
        let end = try await probe.waitForExit(deadline: .now + .seconds(60))
        #expect(end == .exited(0), "graph-probe set-count \(n): \(probe.standardError)")
    }
}

// MARK: - @GraphUserDefault's onDidSet

@Suite("DocPromiseHooks: @GraphUserDefault onDidSet (PersistentBacking.md)")
struct DocPromiseHooksWrapperTests {
    // PersistentBacking.md: "`@GraphUserDefault`'s `$name` is the wrapper itself (the same object each time), reading
    // and writing like the node (`$theme.wrappedValue`), and its `onDidSet` runs once per change of the value, whoever
    // made it ...: a set through the wrapper (on the setting thread; an equal set runs nothing)"
    @Test func aSetThroughTheWrapperIsToldOnceOnTheSettingThreadAndAnEqualSetRunsNothing() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let settings = DocPromiseHooksSupport.settings(folder)
        #expect(settings.$theme === settings.$theme, "the same object each time")
        let log = DocPromiseHooksLog<String>()
        settings.$theme.onDidSet { old, new in log.append(old, new) }
        let results = await finishOnThreads({ () -> UInt in
            settings.theme = "dark"
            settings.theme = "dark"                    // equal: nothing
            settings.$theme.wrappedValue = "dark"      // equal through the wrapper: nothing
            settings.$theme.wrappedValue = "sepia"
            settings.theme = "light"
            return DocPromiseHooksSupport.currentThread()
        })
        let setter = try #require(results?.first, "the sets did not finish (a hang)")
        #expect(log.text == ["light->dark", "dark->sepia", "sepia->light"])
        #expect(log.callThreads.allSatisfy { $0 == setter }, "on the setting thread")
        #expect(settings.$theme.wrappedValue == "light")
        // The suite reports each of these writes back; none is a second change.
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(log.text == ["light->dark", "dark->sepia", "sepia->light"], "an echo of the wrapper's own write was told again")
    }

    // PersistentBacking.md: "and a change another writer made (another wrapper or `DefaultsSuite` on the suite ...;
    // on the thread that brought it in). Each change is told once, in order, each call's old value being the previous
    // call's new one"
    @Test func anotherWrapperOnTheSuiteIsToldOnceInOrder() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let mine = DocPromiseHooksSupport.settings(folder)
        let other = DocPromiseHooksSupport.settings(folder)
        #expect(mine.$theme !== other.$theme)
        let log = DocPromiseHooksLog<String>()
        mine.$theme.onDidSet { old, new in log.append(old, new) }
        other.theme = "dark"
        #expect(await eventually(timeout: .seconds(30)) { log.all.count >= 1 }, "another wrapper's set never reached onDidSet")
        other.theme = "sepia"
        #expect(await eventually(timeout: .seconds(30)) { log.all.last?.new == "sepia" })
        other.theme = "sepia"                        // equal on the other wrapper: no change here either
        other.theme = "light"
        #expect(await eventually(timeout: .seconds(30)) { log.all.last?.new == "light" })
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(log.text == ["light->dark", "dark->sepia", "sepia->light"])
        #expect(mine.theme == "light")
    }

    // PersistentBacking.md: "a change another writer made (another wrapper or `DefaultsSuite` on the suite ...). Each
    // change is told once, in order, each call's old value being the previous call's new one" — many writes in a row
    // from a `DefaultsSuite` object, some of which this process may see together; whatever it reports must be a chain
    // of real changes in the order they were written, ending at the last value.
    @Test func manyDefaultsSuiteWritesAreAChainInOrder() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks", inMemory: true)
        let settings = DocPromiseHooksSupport.settings(folder)
        let log = DocPromiseHooksLog<Int>()
        settings.$level.onDidSet { old, new in log.append(old, new) }
        let suite = DefaultsSuite(suiteName: "hooks", folder: folder.url)
        for value in 1...60 { try suite.set(.int(value), forKey: "level") }
        #expect(await eventually(timeout: .seconds(30)) { settings.level == 60 })
        #expect(await eventually(timeout: .seconds(30)) { log.all.last?.new == 60 }, "the last change was not told: \(log.text.suffix(5))")
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(log.chainProblems(startingAt: 0).isEmpty, "\(log.chainProblems(startingAt: 0).prefix(5))")
        let news = log.all.map(\.new)
        #expect(news == news.sorted() && Set(news).count == news.count, "not in the order written: \(news)")
        #expect(log.all.last?.new == 60)
    }

    // PersistentBacking.md: "a change another writer made (... or another process; on the thread that brought it in).
    // Each change is told once, in order, each call's old value being the previous call's new one" and
    // PortingFromSwiftStateGraph.md: "`@GraphUserDefault`'s `onDidSet` sees every change, another writer's too, and no
    // equal set (0.26). Another process's change arrives on the thread that watches the suite, moments after its write"
    @Test func anotherProcessesSetsAreToldOnceEachAndAnEqualOneNotAtAll() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let model = GraphStorageLocation.$folder.withValue(folder.url) { DocPromiseHooksProbeCount() }
        let log = DocPromiseHooksLog<Int>()
        model.$count.onDidSet { old, new in log.append(old, new) }
        let testThread = DocPromiseHooksSupport.currentThread()
        try await DocPromiseHooksSupport.probeSetCount(folder, 5)
        #expect(await eventually(timeout: .seconds(30)) { log.all.count >= 1 }, "another process's set never reached onDidSet")
        try await DocPromiseHooksSupport.probeSetCount(folder, 9)
        #expect(await eventually(timeout: .seconds(30)) { log.all.last?.new == 9 })
        try await DocPromiseHooksSupport.probeSetCount(folder, 9)     // the same value: no change
        try await DocPromiseHooksSupport.probeSetCount(folder, 10)
        #expect(await eventually(timeout: .seconds(30)) { log.all.last?.new == 10 })
        #expect(try await suiteSettled("probe", in: folder))
        #expect(log.text == ["0->5", "5->9", "9->10"])
        #expect(model.count == 10)
        _ = testThread
    }

    // PersistentBacking.md: "`nil` removes the key, after which the default shows again." (through the wrapper, and a
    // wrapper or node made afterwards) and the onDidSet chain across it.
    @Test func nilRemovesTheKeyAndTheDefaultShowsAgain() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let settings = DocPromiseHooksSupport.settings(folder)
        let log = DocPromiseHooksLog<String?>()
        settings.$nick.onDidSet { old, new in log.append(old, new) }
        #expect(settings.nick == "anon")
        settings.nick = "bob"
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "nick") == .string("bob"))
        settings.nick = nil
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "nick") == nil, "nil removes the key")
        #expect(FileManager.default.fileExists(atPath: folder.file("hooks.plist").path))
        let fresh = DocPromiseHooksSupport.settings(folder)
        #expect(fresh.nick == "anon", "a wrapper made after the removal shows the default")
        let node = GraphStorageLocation.$folder.withValue(folder.url) {
            UserDefaultsStored<String?>(name: "nick", backing: .userDefaults(suite: "hooks", key: "nick"), defaultValue: "anon")
        }
        #expect(node.wrappedValue == "anon", "a node made after the removal shows the default")
        #expect(try await suiteSettled("hooks", in: folder))
        // "after which the default shows again": the wrapper that set nil too.
        #expect(settings.nick == "anon", "the wrapper that set nil shows \(String(describing: settings.nick))")
        #expect(log.chainProblems(startingAt: "anon").isEmpty, "\(log.text)")
        #expect(log.all.last?.new == settings.nick, "the last call's new value is what the wrapper shows: \(log.text)")
    }

    // PersistentBacking.md: "Inside `withGraphBatch`, a suite-backed node's writes are held and written when the
    // outermost batch ends" with "`nil` removes the key" and "Each change is told once, in order, each call's old
    // value being the previous call's new one" — a batch that ends with nil, then the suite's report of that write.
    @Test func aBatchEndingInNilRemovesTheKeyAndTheChainHolds() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let settings = DocPromiseHooksSupport.settings(folder)
        settings.nick = "before"
        let log = DocPromiseHooksLog<String?>()
        settings.$nick.onDidSet { old, new in log.append(old, new) }
        withGraphBatch {
            settings.nick = "a"
            settings.nick = "b"
            settings.nick = nil
            #expect(DocPromiseHooksSupport.suiteValue(folder, key: "nick") == .string("before"), "held until the batch ends")
        }
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "nick") == nil, "the batch's nil removed the key")
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(log.chainProblems(startingAt: "before").isEmpty, "\(log.text)")
        #expect(log.all.last?.new == settings.nick, "\(log.text), shows \(String(describing: settings.nick))")
        #expect(log.all.first?.old == "before", "\(log.text)")
        #expect(GraphStorageLocation.$folder.withValue(folder.url) { DocPromiseHooksSettings() }.nick == "anon")
        // A batch that sets nil and then the value back leaves the key, with one write.
        withGraphBatch {
            settings.nick = nil
            settings.nick = "back"
        }
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "nick") == .string("back"))
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(log.chainProblems(startingAt: "before").isEmpty, "\(log.text)")
        #expect(log.all.last?.new == "back" && settings.nick == "back", "\(log.text)")
    }

    // PersistentBacking.md: "its `onDidSet` runs once per change of the value ... each call's old value being the
    // previous call's new one" — a handler that sets the value itself (a second change, made from inside the first
    // call) must not hang and must keep the chain.
    @Test func aHandlerThatSetsTheValueItselfKeepsTheChain() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let settings = DocPromiseHooksSupport.settings(folder)
        let log = DocPromiseHooksLog<Int>()
        settings.$level.onDidSet { [settings] old, new in
            log.append(old, new)
            if new == 1 { settings.level = 2 }           // a set from inside the call
            if new == 10 { settings.level = 10 }         // an equal set from inside: nothing
        }
        let done = await finishOnThreads({ settings.level = 1; return settings.level })
        let after = try #require(done?.first, "a set from inside onDidSet hung")
        #expect(after == 2)
        #expect(log.text == ["0->1", "1->2"])
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "level") == .int(2))
        // The same from another writer's change: the handler runs on the thread that brought it in and sets again.
        try DocPromiseHooksSupport.outsideWrite(.int(1), key: "level", in: folder)
        #expect(await eventually(timeout: .seconds(30)) { settings.level == 2 && log.all.count >= 4 }, "\(log.text)")
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(log.text == ["0->1", "1->2", "2->1", "1->2"])
        #expect(log.chainProblems(startingAt: 0).isEmpty, "\(log.text)")
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "level") == .int(2))
        let equalDone = await finishOnThreads({ settings.level = 10; return settings.level })
        #expect(equalDone?.first == 10, "an equal set from inside onDidSet hung")
        #expect(log.text.last == "2->10" && log.all.count == 5, "\(log.text)")
    }

    // PersistentBacking.md: "The wrapper stays alive while a call for it runs." — for another writer's change (the
    // test holds no reference to the model or the wrapper), the handler drops the last reference to the model that
    // holds the wrapper, then uses the wrapper through a weak reference.
    @Test func theWrapperStaysAliveWhileItsHandlerDropsTheLastReference() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        final class Holder: @unchecked Sendable {
            let model = Mutex<DocPromiseHooksSettings?>(nil)
        }
        // Another writer's change: the call runs on the watcher's thread while the test holds no reference at all.
        do {
            let holder = Holder()
            let seen = Recorded<String>()
            let weakWrapper = Mutex<(() -> GraphUserDefault<String>?)?>(nil)
            holder.model.withLock { $0 = DocPromiseHooksSupport.settings(folder) }
            holder.model.withLock { model in
                let wrapper = model!.$theme
                weakWrapper.withLock { $0 = { [weak wrapper] in wrapper } }
                wrapper.onDidSet { old, new in
                    holder.model.withLock { $0 = nil }
                    let alive = weakWrapper.withLock { $0?() }
                    seen.append("\(old)->\(new) alive \(alive != nil) reads \(alive?.wrappedValue ?? "-")")
                }
            }
            try DocPromiseHooksSupport.outsideWrite(.string("sepia"), key: "theme", in: folder)
            #expect(await eventually(timeout: .seconds(30)) { !seen.all.isEmpty }, "the outside change never reached onDidSet")
            #expect(seen.all == ["light->sepia alive true reads sepia"])
            #expect(holder.model.withLock { $0 == nil })
        }
    }

    // PersistentBacking.md: "a set through the wrapper (on the setting thread; an equal set runs nothing) ... Each
    // change is told once, in order, each call's old value being the previous call's new one." — four threads set
    // distinct values at once: every set is a change, so every value is told exactly once, chained.
    @Test func concurrentSetsFromFourThreadsAreEachToldOnceChained() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks", inMemory: true)
        let settings = DocPromiseHooksSupport.settings(folder)
        let log = DocPromiseHooksLog<Int>()
        settings.$level.onDidSet { old, new in log.append(old, new) }
        let perThread = 60
        let start = Rendezvous(parties: 4)
        let body: @Sendable (Int) -> UInt? = { thread in
            guard start.arriveAndWait() else { return nil }
            for i in 1...perThread { settings.level = thread * 1_000 + i }
            return DocPromiseHooksSupport.currentThread()
        }
        let done = await finishOnThreads(within: .seconds(120), { body(1) }, { body(2) }, { body(3) }, { body(4) })
        let setters = try #require(done, "the sets did not finish")
        #expect(setters.allSatisfy { $0 != nil }, "the sets did not start together")
        // "a set through the wrapper (on the setting thread ...)": the call telling value t*1000+i ran on thread t.
        let wrongThread = zip(log.all, log.callThreads).filter { call, thread in setters[call.new / 1_000 - 1] != thread }
        // On the previous main, under contention some calls ran on another setter's thread ("3020->2020" on thread 3's).
        #expect(wrongThread.isEmpty, "calls not on the thread that set their value: \(wrongThread.prefix(5).map { $0.0.description })")
        #expect(try await suiteSettled("hooks", in: folder))
        let calls = log.all
        #expect(log.chainProblems(startingAt: 0).isEmpty, "\(log.chainProblems(startingAt: 0).prefix(5))")
        let news = calls.map(\.new)
        let written = Set((1...4).flatMap { t in (1...perThread).map { t * 1_000 + $0 } })
        let missing = written.subtracting(news).sorted()
        let extra = Set(news).subtracting(written).sorted()
        #expect(extra.isEmpty, "values told that no one set: \(extra); calls: \(log.text)")
        // On the previous main concurrent sets were coalesced: 16 to 100 of 240 sets were never told.
        #expect(news.count == written.count, "\(news.count) calls for \(written.count) changes")
        #expect(missing.isEmpty, "sets not told: \(missing)")
        for t in 1...4 {   // each thread's values, in the order that thread set them
            let mine = news.filter { $0 / 1_000 == t }
            #expect(mine == mine.sorted(), "thread \(t)'s sets told out of order: \(mine.prefix(10))")
        }
        #expect(calls.last?.new == settings.level, "the last call's new value is not the value: \(String(describing: calls.last)) vs \(settings.level)")
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "level") == .int(settings.level))
    }

    // PersistentBacking.md: "`nil` removes the key, after which the default shows again." with "a change another writer
    // made (another wrapper or `DefaultsSuite` on the suite ...)" told as a change: another writer removes the key.
    @Test func anotherWriterRemovingTheKeyShowsTheDefaultAndIsToldOnce() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let settings = DocPromiseHooksSupport.settings(folder)
        settings.theme = "dark"
        let log = DocPromiseHooksLog<String>()
        settings.$theme.onDidSet { old, new in log.append(old, new) }
        try DocPromiseHooksSupport.outsideWrite(nil, key: "theme", in: folder)
        #expect(await eventually(timeout: .seconds(30)) { settings.theme == "light" }, "the default did not show again: \(settings.theme)")
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(log.text == ["dark->light"])
        // Removing a key that is already absent is no change.
        try DocPromiseHooksSupport.outsideWrite(nil, key: "theme", in: folder)
        try DocPromiseHooksSupport.outsideWrite(.string("sepia"), key: "theme", in: folder)
        #expect(await eventually(timeout: .seconds(30)) { log.all.last?.new == "sepia" })
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(log.text == ["dark->light", "light->sepia"])
    }

    // PersistentBacking.md: "Each change is told once, in order, each call's old value being the previous call's new
    // one" — sets through the wrapper on one thread while another `DefaultsSuite` writes the key on another: whatever
    // interleaving, the calls chain, tell no value no one wrote, and end where the wrapper and the file end.
    @Test func localSetsRacingAnotherWriterStillChain() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks", inMemory: true)
        let settings = DocPromiseHooksSupport.settings(folder)
        let log = DocPromiseHooksLog<Int>()
        settings.$level.onDidSet { old, new in log.append(old, new) }
        let start = Rendezvous(parties: 2)
        let suite = DefaultsSuite(suiteName: "hooks", folder: folder.url)
        let done = await finishOnThreads(within: .seconds(120), { () -> Bool in
            guard start.arriveAndWait() else { return false }
            for i in 1...80 { settings.level = i }
            return true
        }, { () -> Bool in
            guard start.arriveAndWait() else { return false }
            for i in 1...80 { try? suite.set(.int(10_000 + i), forKey: "level") }
            return true
        })
        #expect(done == [true, true])
        #expect(try await suiteSettled("hooks", in: folder))
        let file = DocPromiseHooksSupport.suiteValue(folder, key: "level")?.intValue
        #expect(await eventually(timeout: .seconds(10)) { settings.level == file }, "the wrapper \(settings.level) and the file \(String(describing: file)) disagree")
        #expect(log.chainProblems(startingAt: 0).isEmpty, "\(log.chainProblems(startingAt: 0).prefix(5))")
        let written = Set(1...80).union(10_001...10_080)
        let extra = Set(log.all.map(\.new)).subtracting(written)
        #expect(extra.isEmpty, "values told that no one wrote: \(extra)")
        #expect(log.all.last?.new == settings.level, "the last call \(String(describing: log.all.last)) is not the value \(settings.level)")
        let outside = log.all.map(\.new).filter { $0 > 10_000 }
        #expect(outside == outside.sorted(), "another writer's changes told out of order: \(outside)")
    }

    // PersistentBacking.md: "Inside `withGraphBatch`, a suite-backed node's writes are held and written when the
    // outermost batch ends ... (the node's value at that moment ...)" with "Each change is told once, in order, each
    // call's old value being the previous call's new one" — another writer changes the key while a batch that set it
    // is open; the batch then sets it again. Whatever the wrapper saw, the calls chain and end at the batch's value.
    @Test func anotherWriterDuringABatchKeepsTheChain() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let settings = DocPromiseHooksSupport.settings(folder)
        let log = DocPromiseHooksLog<String>()
        settings.$theme.onDidSet { old, new in log.append(old, new) }
        let done = await finishOnThreads(within: .seconds(60), { () -> String in
            var sawOutside = false
            withGraphBatch {
                settings.theme = "a"
                try? DocPromiseHooksSupport.outsideWrite(.string("x"), key: "theme", in: folder)
                sawOutside = waitUntil(timeout: .seconds(3)) { settings.theme == "x" }
                settings.theme = "b"
            }
            return sawOutside ? "saw x" : "x not seen inside the batch"
        })
        #expect(done != nil, "the batch hung")
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "theme") == .string("b"), "the batch's value at its end")
        #expect(settings.theme == "b")
        #expect(log.chainProblems(startingAt: "light").isEmpty, "\(log.text) (\(done?.first ?? "-"))")
        #expect(log.all.last?.new == "b", "\(log.text)")
        #expect(Set(log.all.map(\.new)).isSubset(of: ["a", "x", "b"]), "\(log.text)")
    }
}

// MARK: - A plain node's onDidSet

@Suite("DocPromiseHooks: a plain node's onDidSet (DeclaringNodes.md)")
struct DocPromiseHooksNodeTests {
    // DeclaringNodes.md: "`$count.onDidSet { old, new in }` runs after every set of the node, on the setting thread
    // once the change has spread, equal sets included (one handler per node; a second replaces the first). It sees
    // this process's sets of the node only ...: a change another writer makes to a suite-backed node reaches the node
    // and its observers, not this hook" and PersistentBacking.md: "(A plain node's `onDidSet` sees this process's
    // sets only.)"
    @Test func aSuiteBackedNodesHookSeesThisProcesssSetsOnlyEqualOnesIncluded() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let count = GraphStorageLocation.$folder.withValue(folder.url) {
            StoredNode(name: "count", backing: .userDefaults(suite: "probe", key: "count"), defaultValue: 0)
        }
        let doubled = Computed(name: "doubled") { _ in count.wrappedValue * 2 }
        let log = Recorded<String>()
        count.onDidSet { old, new in log.append("\(old)->\(new) doubled \(doubled.wrappedValue)") }
        let observed = Recorded<Int>()
        let subscription = GraphSubscription({ count.wrappedValue }, onChange: { observed.append($0) })
        defer { subscription.cancel() }
        let done = await finishOnThreads({ () -> UInt in
            count.wrappedValue = 1
            count.wrappedValue = 1                           // equal: told too
            return DocPromiseHooksSupport.currentThread()
        })
        #expect(done != nil)
        #expect(log.all == ["0->1 doubled 2", "1->1 doubled 2"], "after every set, once the change has spread")
        // Another DefaultsSuite and another process: the node and its observers follow, the hook stays quiet.
        try DocPromiseHooksSupport.outsideWrite(.int(7), key: "count", suite: "probe", in: folder)
        #expect(await eventually(timeout: .seconds(30)) { count.wrappedValue == 7 && observed.all.last == 7 })
        try await DocPromiseHooksSupport.probeSetCount(folder, 8)
        #expect(await eventually(timeout: .seconds(30)) { count.wrappedValue == 8 && observed.all.last == 8 })
        #expect(try await suiteSettled("probe", in: folder))
        #expect(log.all == ["0->1 doubled 2", "1->1 doubled 2"], "the hook saw another writer's change")
        // A second handler replaces the first.
        let second = Recorded<String>()
        count.onDidSet { old, new in second.append("\(old)->\(new)") }
        count.wrappedValue = 9
        #expect(second.all == ["8->9"])
        #expect(log.all.count == 2)
    }

    // DeclaringNodes.md: "`$count.onDidSet { old, new in }` runs after every set of the node, on the setting thread
    // once the change has spread, equal sets included" — four threads setting a suite-backed node at once: one call
    // per set, each on its own thread.
    @Test func aNodesHookRunsForEverySetFromFourThreads() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks", inMemory: true)
        let level = GraphStorageLocation.$folder.withValue(folder.url) {
            StoredNode(name: "level", backing: .userDefaults(suite: "hooks", key: "level"), defaultValue: 0)
        }
        let log = DocPromiseHooksLog<Int>()
        level.onDidSet { old, new in log.append(old, new) }
        let start = Rendezvous(parties: 4)
        let body: @Sendable (Int) -> UInt? = { thread in
            guard start.arriveAndWait() else { return nil }
            for i in 1...60 { level.wrappedValue = thread * 1_000 + i }
            return DocPromiseHooksSupport.currentThread()
        }
        let done = await finishOnThreads(within: .seconds(120), { body(1) }, { body(2) }, { body(3) }, { body(4) })
        let setters = try #require(done, "the sets did not finish")
        let news = log.all.map(\.new)
        #expect(news.count == 240 && Set(news).count == 240, "\(news.count) calls, \(Set(news).count) values, for 240 sets")
        let wrongThread = zip(log.all, log.callThreads).filter { call, thread in setters[call.new / 1_000 - 1] != thread }
        #expect(wrongThread.isEmpty, "calls not on the setting thread: \(wrongThread.prefix(5).map { $0.0.description })")
    }

    // DeclaringNodes.md: "`$items.unsafeModify { $0.append(x) }` changes the value in place and tells nobody: no
    // dependent is marked, no observer runs, no `onDidSet` (a suite-backed node still writes its suite)" — and the
    // suite's report of that write is not a set of this process the hook would see.
    @Test func unsafeModifyOnASuiteBackedNodeWritesTheSuiteAndRunsNoHook() async throws {
        let folder = try TemporaryFolder(prefix: "docpromise-hooks")
        let items = GraphStorageLocation.$folder.withValue(folder.url) {
            StoredNode(name: "items", backing: .userDefaults(suite: "hooks", key: "items"), defaultValue: [Int]())
        }
        let calls = Recorded<String>()
        items.onDidSet { old, new in calls.append("\(old)->\(new)") }
        items.unsafeModify { $0.append(4) }
        #expect(items.wrappedValue == [4])
        #expect(DocPromiseHooksSupport.suiteValue(folder, key: "items") == .array([.int(4)]), "a suite-backed node still writes its suite")
        #expect(try await suiteSettled("hooks", in: folder))
        #expect(calls.all.isEmpty, "no onDidSet: \(calls.all)")
        #expect(items.wrappedValue == [4])
    }
}
