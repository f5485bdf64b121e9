import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Synchronization
import Testing
import TestSupport

/// swift-state-graph 0.25 makes the storage part of a stored node's type: `_Stored<Value, S: Storage>`,
/// `Stored<V>` = `_Stored<V, InMemoryStorage<V>>`, `UserDefaultsStored<V>` =
/// `_Stored<V, UserDefaultsStorage<V>>`. Code written against that (its own `UserDefaultsStoredTests`
/// helper, generic code constrained on the storage, a storage of the program's own) compiles here with
/// at most the rename `userDefaults:` → `suiteName:`, and behaves as there. None of this compiled on
/// c606d04, where `UserDefaultsStored<V>` was another name for `Stored<V>`.
@Suite("StateGraph: the storage in the node's type (0.25)")
struct StorageTypeTests {
    /// 0.25's own test helper (`UserDefaultsStoredTests.makeUserDefaultsStoredNode`), with the one rename.
    private func makeUserDefaultsStoredNode<T: UserDefaultsStorable>(suiteName: String, key: String,
                                                                     defaultValue: T) -> UserDefaultsStored<T> {
        let storage = UserDefaultsStorage(
            suiteName: suiteName, // ported: `userDefaults: UserDefaults(suiteName:)!`
            key: key,
            defaultValue: defaultValue
        )
        return _Stored(
            storage: storage
        )
    }

    @Test("0.25's UserDefaultsStored helper: default, set, the suite holds it, a new node reads it back")
    func userDefaultsStoredHelper() throws {
        try withSuiteFolder { folder in
            let node = makeUserDefaultsStoredNode(suiteName: "typed", key: "greeting", defaultValue: "default")
            #expect(node.wrappedValue == "default")
            node.wrappedValue = "updated"
            #expect(node.wrappedValue == "updated")
            let suite = DefaultsSuite(suiteName: "typed", folder: folder.url)
            #expect(suite.string(forKey: "greeting") == "updated")
            let again = makeUserDefaultsStoredNode(suiteName: "typed", key: "greeting", defaultValue: "default")
            #expect(again.wrappedValue == "updated")
            // The storage's own `value` reads and writes the same key.
            let storage = UserDefaultsStorage(suiteName: "typed", key: "greeting", defaultValue: "default")
            #expect(storage.value == "updated")
        }
    }

    @Test("a memory node and a suite node have different types, each the one 0.25 names")
    func typeInformation() throws {
        try withSuiteFolder { _ in
            let memoryStored = Stored(wrappedValue: 42)
            let defaultsStored = UserDefaultsStored(key: "number_key", defaultValue: 100)
            #expect(type(of: memoryStored) != type(of: defaultsStored) as Any.Type)
            #expect((memoryStored as Any) is _Stored<Int, InMemoryStorage<Int>>)
            #expect((defaultsStored as Any) is _Stored<Int, UserDefaultsStorage<Int>>)
            #expect(!((memoryStored as Any) is _Stored<Int, UserDefaultsStorage<Int>>))
            #expect(!((defaultsStored as Any) is Stored<Int>))
            let viaStorage = _Stored(storage: InMemoryStorage(initialValue: 7))
            #expect((viaStorage as Any) is Stored<Int>)
            #expect(viaStorage.wrappedValue == 7)
        }
    }

    /// Generic code over any stored node, as 0.25's users write it.
    private func reset<S: StateGraph.Storage<Int>>(_ node: _Stored<Int, S>, to value: Int) {
        node.wrappedValue = value
    }

    private func describe<S>(_ node: _Stored<Int, S>) -> String {
        "\(S.self)"
    }

    @Test("generic code constrained on the storage takes both kinds of node; computed nodes follow both")
    func genericOverTheStorage() throws {
        try withSuiteFolder { folder in
            let memory = Stored(name: "memory", wrappedValue: 1)
            let suite = UserDefaultsStored(name: "suite", suite: "generic", key: "n", defaultValue: 2)
            let sum = Computed { _ in memory.wrappedValue + suite.wrappedValue }
            #expect(sum.wrappedValue == 3)
            reset(memory, to: 10)
            reset(suite, to: 20)
            #expect(sum.wrappedValue == 30)
            #expect(describe(memory) == "InMemoryStorage<Int>")
            #expect(describe(suite) == "UserDefaultsStorage<Int>")
            #expect(DefaultsSuite(suiteName: "generic", folder: folder.url).integer(forKey: "n") == 20)
            // `Computed(stored)` takes either.
            #expect(Computed(suite).wrappedValue == 20)
        }
    }

    @Test("a suite node made from its storage sees another writer's change, as UserDefaultsStored(key:) does")
    func storageNodeSeesOutsideWrites() async throws {
        try await withSuiteFolder { folder in
            let node: UserDefaultsStored<Int> = _Stored(storage: UserDefaultsStorage(suiteName: "outside", key: "k", defaultValue: 0))
            let doubled = Computed { _ in node.wrappedValue * 2 }
            #expect(doubled.wrappedValue == 0)
            try writeAsAnotherProcess(.int(21), forKey: "k", suite: "outside", in: folder)
            #expect(await eventually { doubled.wrappedValue == 42 })
        }
    }

    @Test("shouldNotify decides what counts as a change; an Equatable value's equal set changes nothing")
    func shouldNotifyAndEquality() {
        let evens = _Stored(storage: InMemoryStorage(initialValue: 0), shouldNotify: { old, new in old % 2 != new % 2 })
        let parity = Computed { _ in evens.wrappedValue % 2 }
        #expect(parity.wrappedValue == 0)
        let runs = parity.evaluationCount
        evens.wrappedValue = 2     // same parity: not a change, no dependent is marked stale
        #expect(parity.wrappedValue == 0)
        #expect(parity.evaluationCount == runs)
        evens.wrappedValue = 3
        #expect(parity.wrappedValue == 1)

        let plain = _Stored(storage: InMemoryStorage(initialValue: "a"))
        let upper = Computed { _ in plain.wrappedValue.uppercased() }
        #expect(upper.wrappedValue == "A")
        let before = upper.evaluationCount
        plain.wrappedValue = "a"
        #expect(upper.wrappedValue == "A")
        #expect(upper.evaluationCount == before)
    }

    /// A storage of the program's own, as a 0.25 user writes one (a keychain, a server): it counts what
    /// the node does with it and can change its value behind the node's back.
    final class RecordingStorage: StateGraph.Storage, @unchecked Sendable {
        // `@unchecked`: every field is guarded by `lock`.
        private let lock = NSLock()
        private var stored: Int
        private var context: StorageContext?
        private(set) var sets: [Int] = []
        private(set) var unloadedCount = 0

        init(_ value: Int) { stored = value }

        var value: Int {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue; sets.append(newValue) } }
        }

        func loaded(context: StorageContext) { lock.withLock { self.context = context } }
        func unloaded() { lock.withLock { unloadedCount += 1 } }

        /// Changes the value as another writer would, and tells the node.
        func changeOutside(to value: Int) {
            let context = lock.withLock { stored = value; return self.context }
            context?.notifyStorageUpdated()
        }

        var recordedSets: [Int] { lock.withLock { sets } }
        var unloads: Int { lock.withLock { unloadedCount } }
    }

    @Test("a storage of one's own: read at creation, given every set, its outside changes spread")
    func customStorage() {
        let storage = RecordingStorage(5)
        let node: _Stored<Int, RecordingStorage> = _Stored(name: "custom", storage: storage)
        let doubled = Computed { _ in node.wrappedValue * 2 }
        #expect(node.wrappedValue == 5)
        #expect(doubled.wrappedValue == 10)

        node.wrappedValue = 6
        #expect(storage.value == 6)
        #expect(storage.recordedSets == [6])
        #expect(doubled.wrappedValue == 12)

        let fired = Counter()
        withGraphObservationTracking { _ = doubled.wrappedValue } onChange: { fired.bump() }
        storage.changeOutside(to: 8)
        #expect(node.wrappedValue == 8)
        #expect(doubled.wrappedValue == 16)
        #expect(fired.count == 1)
        // Not written back: the change came from the storage.
        #expect(storage.recordedSets == [6])

        // An equal value from outside changes nothing.
        withGraphObservationTracking { _ = doubled.wrappedValue } onChange: { fired.bump() }
        storage.changeOutside(to: 8)
        #expect(fired.count == 1)

        // `unsafeModify` tells nobody but still gives the storage the value.
        node.unsafeModify { $0 = 9 }
        #expect(storage.value == 9)
        #expect(storage.unloads == 0)
    }

    @Test("a storage of one's own is unloaded once when its node is released")
    func customStorageUnloads() {
        let storage = RecordingStorage(1)
        do {
            let node = _Stored(storage: storage)
            node.wrappedValue = 2
        }
        #expect(storage.unloads == 1)
        #expect(storage.value == 2)
    }

    @Test("concurrent sets reach a storage of one's own in the order the node takes them")
    func customStorageOrder() async throws {
        let storage = RecordingStorage(0)
        let node = _Stored(storage: storage)
        let perThread = 250
        print("customStorageOrder: 4 threads × \(perThread) sets")
        @Sendable func sets(_ thread: Int) -> Bool {
            for i in 0..<perThread { node.wrappedValue = thread * 10_000 + i + 1 }
            return true
        }
        let finished = await finishOnThreads({ sets(1) }, { sets(2) }, { sets(3) }, { sets(4) })
        #expect(finished == [true, true, true, true])
        // Every set reached the storage, and the node's last value is the storage's last set: the two
        // never disagree.
        #expect(storage.recordedSets.count == 4 * perThread)
        #expect(storage.recordedSets.last == node.wrappedValue)
        #expect(storage.value == node.wrappedValue)
    }

    @Test("@GraphStored(backed:) declares a UserDefaultsStored node, as 0.25's macro does")
    func macroBackedType() throws {
        final class Model {
            @GraphStored(backed: .userDefaults(suite: "macro", key: "theme")) var theme: String = "light"
            @GraphStored var count: Int = 0
        }
        try withSuiteFolder { folder in
            let model = Model()
            let theme: UserDefaultsStored<String> = model.$theme
            let count: Stored<Int> = model.$count
            theme.wrappedValue = "dark"
            count.wrappedValue = 1
            #expect(DefaultsSuite(suiteName: "macro", folder: folder.url).string(forKey: "theme") == "dark")
            #expect(Model().theme == "dark")
        }
    }
}
