@testable import DocumentStore
import DocumentTestModel
import Foundation
import Synchronization
import Testing
import TestSupport

/// The identity map's table (`IdentifierTable`) and what the map must keep on top of it: one live
/// instance per identifier, weak entries that go when their object does, each instance's revision
/// (through growth and sweeps), and all of that under many threads loading and releasing the same
/// identifiers at once.
@Suite struct IdentityMapTests {
    /// An object the map holds (weakly), knowing the revision it was put in with.
    final class Held: @unchecked Sendable {
        let identifier: String
        let revision: String
        init(_ identifier: String, revision: String) {
            self.identifier = identifier
            self.revision = revision
        }
    }

    /// A count several threads add to.
    final class Count: Sendable {
        let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var total: Int { value.load(ordering: .relaxed) }
    }

    /// Failures several threads report.
    final class Failures: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ failure: String) { list.withLock { $0.append(failure) } }
        var all: [String] { list.withLock { $0 } }
    }

    /// A value that counts its deinitializations, to see what a table destroys.
    final class Counted {
        static let destroyed = Atomic<Int>(0)
        let number: Int
        init(_ number: Int) { self.number = number }
        deinit { Self.destroyed.add(1, ordering: .relaxed) }
    }

    /// Whether `a` and `b` are one instance (outside `#expect`, whose expansion of `===` on an
    /// `AnyObject` and a class crashes the 6.3 compiler).
    static func same(_ a: AnyObject?, _ b: AnyObject?) -> Bool { a === b }

    // MARK: The table

    @Test func keysWithEqualHashesAreToldApartByTheirIdentifiers() {
        var table = IdentifierTable<Int>()
        // Every key in one bucket chain: a probe must compare identifiers, not only hashes.
        let keys = (0..<40).map { IdentifierKey(identifier: "id-\($0)", hash: Int.min | 7) }
        for (index, key) in keys.enumerated() {
            if !table.hasRoom(for: 1) { table.rebuild(reserving: 1) { _ in true } }
            let (slot, found) = table.find(key)
            #expect(!found)
            table.insert(key, index, at: slot)
        }
        #expect(table.count == 40)
        for (index, key) in keys.enumerated() {
            let (slot, found) = table.find(key)
            #expect(found && table.value(at: slot).pointee == index)
        }
        #expect(!table.find(IdentifierKey(identifier: "id-40", hash: Int.min | 7)).found)
        #expect(!table.find(IdentifierKey("id-3")).found, "the same identifier under another hash is another key")
    }

    @Test func identifiersAreEqualAsSwiftStringsAreAsDictionaryKeys() {
        // The map's keys compare as the Dictionary it replaced compared them: canonically equivalent
        // strings are one key (both hash alike), different ones are not.
        var table = IdentifierTable<Int>()
        let composed = IdentifierKey("caf\u{E9}")
        let (slot, _) = table.find(composed)
        table.insert(composed, 1, at: slot)
        let dictionary: [String: Int] = ["caf\u{E9}": 1]
        #expect(table.find(IdentifierKey("cafe\u{301}")).found == (dictionary["cafe\u{301}"] != nil))
        #expect(table.find(IdentifierKey("cafe")).found == (dictionary["cafe"] != nil))
    }

    @Test func aRebuildKeepsWhatItIsToldToAndDestroysTheRest() {
        Counted.destroyed.store(0, ordering: .relaxed)
        do {
            var table = IdentifierTable<Counted>()
            for number in 0..<1000 {
                if !table.hasRoom(for: 1) { table.rebuild(reserving: 1) { _ in true } }
                let key = IdentifierKey("n\(number)")
                let (slot, found) = table.find(key)
                #expect(!found)
                table.insert(key, Counted(number), at: slot)
            }
            #expect(Counted.destroyed.load(ordering: .relaxed) == 0, "growing moves values, never copies or destroys them")
            table.rebuild(reserving: 0) { $0.pointee.number % 2 == 0 }
            #expect(table.count == 500 && Counted.destroyed.load(ordering: .relaxed) == 500)
            var seen = Set<Int>()
            table.forEach { key, value in
                #expect(key.identifier == "n\(value.pointee.number)" && key.hash == IdentifierKey(key.identifier).hash)
                seen.insert(value.pointee.number)
            }
            #expect(seen == Set(stride(from: 0, to: 1000, by: 2)))
            for number in 0..<1000 {
                let (slot, found) = table.find(IdentifierKey("n\(number)"))
                #expect(found == (number % 2 == 0))
                if found { #expect(table.value(at: slot).pointee.number == number) }
            }
            table.removeAll()
            #expect(table.count == 0 && Counted.destroyed.load(ordering: .relaxed) == 1000)
            let key = IdentifierKey("n1")
            let (slot, _) = table.find(key)
            table.insert(key, Counted(1), at: slot)
        }
        #expect(Counted.destroyed.load(ordering: .relaxed) == 1001, "a table destroys its values when it goes")
    }

    // MARK: The map

    @Test func aSecondLoadGetsTheSameInstanceAndAReleasedOneIsDropped() {
        let map = IdentityMap()
        let key = IdentifierKey("a")
        weak var gone: Held?
        do {
            let first = Held("a", revision: "1-a")
            #expect(Self.same(map.insertLoaded(first, key: key, revision: first.revision), first))
            let second = Held("a", revision: "1-b")
            #expect(Self.same(map.insertLoaded(second, key: key, revision: second.revision), first), "the live instance wins")
            #expect(Self.same(map.object(key), first) && map.revision(of: first, key: key) == "1-a")
            #expect(map.revision(of: second, key: key) == nil, "an instance the map does not hold has no revision")
            gone = first
        }
        #expect(gone == nil, "the map holds its objects weakly")
        #expect(map.object(key) == nil && map.liveCount == 0)
        let third = Held("a", revision: "2-c")
        #expect(Self.same(map.insertLoaded(third, key: key, revision: third.revision), third), "a released instance is replaced")
        #expect(map.revision(of: third, key: key) == "2-c")
        map.replace(key, with: nil, revision: "")
        #expect(map.object(key) == nil && map.revision(of: third, key: key) == nil, "a refresh that found it deleted removes it")
    }

    @Test func revisionsAndInstancesSurviveGrowthAndSweeps() {
        let map = IdentityMap()
        var kept: [Held] = []
        var released: [String] = []
        for round in 0..<6 {
            // Each round adds 2,000 entries (loads, and a committed transaction's saves), keeps a third
            // of them and releases the rest, so the table grows and sweeps several times over.
            var fresh: [Held] = []
            for index in 0..<1000 {
                let held = Held("load-\(round)-\(index)", revision: "1-\(round)-\(index)")
                #expect(Self.same(map.insertLoaded(held, key: IdentifierKey(held.identifier), revision: held.revision), held))
                fresh.append(held)
            }
            var records = IdentifierTable<WriteContext.Record>()
            for index in 0..<1000 {
                let held = Held("save-\(round)-\(index)", revision: "2-\(round)-\(index)")
                let key = IdentifierKey(held.identifier)
                if !records.hasRoom(for: 1) { records.rebuild(reserving: 1) { _ in true } }
                let (slot, _) = records.find(key)
                records.insert(key, WriteContext.Record(visited: true, outcome: .written(.init(object: held, revision: held.revision, deleted: false))), at: slot)
                fresh.append(held)
            }
            map.commit(draining: &records)
            #expect(records.count == 0, "a commit empties the records it takes")
            for (index, held) in fresh.enumerated() {
                if index % 3 == 0 { kept.append(held) } else { released.append(held.identifier) }
            }
        }
        #expect(map.liveCount == kept.count)
        for held in kept {
            let key = IdentifierKey(held.identifier)
            #expect(Self.same(map.object(key), held))
            #expect(map.revision(of: held, key: key) == held.revision)
        }
        for identifier in released { #expect(map.object(IdentifierKey(identifier)) == nil) }
        kept.removeAll()
        #expect(map.liveCount == 0, "every entry's object is gone")
    }

    @Test func aCommitAppliesLoadsRefreshesAndSavesInTheirOrder() {
        let map = IdentityMap()
        let live = Held("live", revision: "1-live")
        _ = map.insertLoaded(live, key: IdentifierKey("live"), revision: live.revision)
        let deletedThroughIt = Held("deleted", revision: "2-deleted")
        var records = IdentifierTable<WriteContext.Record>()
        func add(_ identifier: String, _ record: WriteContext.Record) {
            let key = IdentifierKey(identifier)
            let (slot, _) = records.find(key)
            records.insert(key, record, at: slot)
        }
        let loadedLate = Held("live", revision: "1-late")
        let refreshed = Held("refreshed", revision: "3-refreshed")
        let savedOverLive = Held("saved", revision: "2-saved")
        let liveBeforeSave = Held("saved", revision: "1-saved")
        _ = map.insertLoaded(liveBeforeSave, key: IdentifierKey("saved"), revision: liveBeforeSave.revision)
        let loadedFresh = Held("fresh", revision: "1-fresh")
        let goneByRefresh = Held("gone", revision: "1-gone")
        _ = map.insertLoaded(goneByRefresh, key: IdentifierKey("gone"), revision: goneByRefresh.revision)
        // A load that another thread's live instance beats; a load of an identifier the map lacks; a
        // refresh; a refresh that found the document deleted; a save over a live instance; a deletion.
        add("live", .init(outcome: .loaded(.init(object: loadedLate, revision: loadedLate.revision, replacing: false))))
        add("fresh", .init(outcome: .loaded(.init(object: loadedFresh, revision: loadedFresh.revision, replacing: false))))
        add("refreshed", .init(outcome: .loaded(.init(object: refreshed, revision: refreshed.revision, replacing: true))))
        add("gone", .init(outcome: .loaded(.init(object: nil, revision: "", replacing: true))))
        add("saved", .init(visited: true, outcome: .written(.init(object: savedOverLive, revision: savedOverLive.revision, deleted: false))))
        add("deleted", .init(outcome: .written(.init(object: deletedThroughIt, revision: deletedThroughIt.revision, deleted: true))))
        add("visited only", .init(visited: true))
        map.commit(draining: &records)
        #expect(Self.same(map.object(IdentifierKey("live")), live) && map.revision(of: live, key: IdentifierKey("live")) == "1-live")
        #expect(Self.same(map.object(IdentifierKey("refreshed")), refreshed))
        #expect(Self.same(map.object(IdentifierKey("fresh")), loadedFresh))
        #expect(map.object(IdentifierKey("gone")) == nil && map.revision(of: goneByRefresh, key: IdentifierKey("gone")) == nil)
        #expect(Self.same(map.object(IdentifierKey("saved")), savedOverLive), "a save replaces the live instance")
        #expect(map.revision(of: savedOverLive, key: IdentifierKey("saved")) == "2-saved")
        #expect(map.revision(of: liveBeforeSave, key: IdentifierKey("saved")) == nil)
        #expect(map.object(IdentifierKey("visited only")) == nil)
        #expect(map.object(IdentifierKey("deleted")) == nil, "a document deleted through its object is not served")
        #expect(map.revision(of: deletedThroughIt, key: IdentifierKey("deleted")) == "2-deleted", "but the object keeps its revision")
        withExtendedLifetime((loadedLate, liveBeforeSave, goneByRefresh)) {}
    }

    /// Who holds which instance of each identifier right now; checks that holders never overlap with
    /// two instances of one identifier.
    final class Holders: @unchecked Sendable {
        private let lock = NSLock()
        private var held: [String: [ObjectIdentifier: (object: AnyObject, count: Int)]] = [:]
        private(set) var violations: [String] = []

        func take(_ object: AnyObject, identifier: String) {
            lock.withLock {
                var holders = held[identifier, default: [:]]
                if let other = holders.keys.first(where: { $0 != ObjectIdentifier(object) }), violations.count < 10 {
                    violations.append("\(identifier): \(ObjectIdentifier(object)) while \(other) is held")
                }
                holders[ObjectIdentifier(object), default: (object, 0)].count += 1
                held[identifier] = holders
            }
        }

        func drop(_ object: AnyObject, identifier: String) {
            lock.withLock {
                let id = ObjectIdentifier(object)
                held[identifier]?[id]?.count -= 1
                if held[identifier]?[id]?.count == 0 { held[identifier]?[id] = nil }
            }
        }
    }

    /// Runs `body(thread)` on `threads` threads at once and waits for all of them.
    static func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for thread in 0..<threads {
            done.enter()
            Thread {
                start.wait()
                body(thread)
                done.leave()
            }.start()
        }
        for _ in 0..<threads { start.signal() }
        done.wait()
    }

    @Test func manyThreadsLoadingAndReleasingTheSameIdentifiersShareOneLiveInstance() {
        let map = IdentityMap()
        let holders = Holders()
        let identifiers = (0..<6).map { "shared-\($0)" }
        let wrongRevisions = Count()
        Self.onThreads(8) { thread in
            var generator = SystemRandomNumberGenerator()
            var mine: [(Held, String)] = []
            for step in 0..<20_000 {
                let identifier = identifiers[Int.random(in: 0..<identifiers.count, using: &generator)]
                let key = IdentifierKey(identifier)
                let candidate = Held(identifier, revision: "1-\(thread)-\(step)")
                let shared = map.insertLoaded(candidate, key: key, revision: candidate.revision) as! Held
                holders.take(shared, identifier: identifier)
                // Whoever put it in, the map gives the instance the revision it came with.
                if map.revision(of: shared, key: key) != shared.revision || map.object(key) !== shared {
                    wrongRevisions.add()
                }
                mine.append((shared, identifier))
                // Release at random, often all at once, so entries die and are replaced while others load.
                if mine.count > Int.random(in: 0..<4, using: &generator) {
                    for (object, identifier) in mine { holders.drop(object, identifier: identifier) }
                    mine.removeAll()
                }
                // Unrelated identifiers come and go meanwhile, so the table grows and sweeps under the loads.
                let passing = Held("passing-\(thread)-\(step)", revision: "1-p")
                _ = map.insertLoaded(passing, key: IdentifierKey(passing.identifier), revision: passing.revision)
            }
            for (object, identifier) in mine { holders.drop(object, identifier: identifier) }
        }
        #expect(holders.violations.isEmpty, "two instances of one identifier were held at once: \(holders.violations)")
        #expect(wrongRevisions.total == 0)
        #expect(map.liveCount == 0, "nothing is held any more")
    }

    // MARK: Through the store

    @Test func threadsLoadingSavingAndReleasingThroughTheStoreShareInstancesAndRevisions() throws {
        let store = try TestStore("identity-threads")
        store.persistence.register(persistableKind: Tally.self)
        try store.persistence.transaction { p in
            for index in 0..<24 { try p.save(Tally(identifier: Tally.identifier(index), number: index)) }
        }
        let persistence = try store.reopen()
        persistence.register(persistableKind: Tally.self)
        let holders = Holders()
        let failures = Failures()
        Self.onThreads(6) { thread in
            do {
                var mine: [Tally] = []
                for step in 0..<1500 {
                    let index = Int.random(in: 0..<24)
                    let identifier = Tally.identifier(index)
                    guard let tally: Tally = try persistence.load(identifier) else {
                        failures.add("\(identifier) did not load")
                        continue
                    }
                    holders.take(tally, identifier: identifier)
                    mine.append(tally)
                    // Each thread saves only the tallies it owns (objects are not shared for writing).
                    if index % 6 == thread && step % 5 == 0 {
                        try persistence.transaction { p in
                            try p.save(tally)
                            if try p.load(Tally.self, identifier) !== tally { failures.add("a load in the save's transaction gave another instance") }
                        }
                        let stored = try persistence.snapshot(identifier)?.revision
                        if persistence.revision(of: tally) != stored {
                            failures.add("\(identifier): revision \(String(describing: persistence.revision(of: tally))), stored \(String(describing: stored))")
                        }
                    }
                    if mine.count > Int.random(in: 0..<3) {
                        for held in mine { holders.drop(held, identifier: held.identifier) }
                        mine.removeAll()
                    }
                }
                for held in mine { holders.drop(held, identifier: held.identifier) }
            } catch {
                failures.add("thread \(thread): \(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        #expect(holders.violations.isEmpty, "two instances of one document were held at once: \(holders.violations)")
        #expect(persistence.identityMap.liveCount == 0)
    }

    @Test func aLoadOnAnotherThreadDuringATransactionSeesOnlyWhatIsCommitted() throws {
        let store = try TestStore("identity-other-thread")
        let persistence = store.persistence
        let square = Square(side: 4)
        let id = square.identifier
        let saved = DispatchSemaphore(value: 0)
        let checked = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var square: Square?; var error: (any Error)? }
        let box = Box()
        box.square = square
        Thread {
            do {
                try persistence.transaction { p in
                    try p.save(box.square!)
                    saved.signal()
                    checked.wait()
                }
            } catch {
                box.error = error
            }
            committed.signal()
        }.start()
        saved.wait()
        // A transaction of this store is open on another thread: this thread is not in it.
        #expect(!persistence.isCached(identifier: id), "an uncommitted save is visible outside its transaction")
        #expect(persistence.revision(of: square) == nil)
        checked.signal()
        committed.wait()
        #expect(box.error == nil)
        let loaded: Square? = try persistence.load(id)
        #expect(loaded === square, "after the commit the saved instance is the map's")
        #expect(try persistence.revision(of: square) == persistence.snapshot(id)?.revision)
    }

    @Test func aSequenceBegunInATransactionStillRefusesToGoOnAfterIt() throws {
        let store = try TestStore("identity-escaped-sequence")
        let persistence = store.persistence
        persistence.register(persistableKind: Tally.self)
        try persistence.transaction { p in
            for index in 0..<10 { try p.save(Tally(identifier: Tally.identifier(index), number: index)) }
        }
        var iterator = try persistence.transaction { p in
            var iterator = try p.loadAll(kind: Tally.self, pageSize: 2).makeIterator()
            _ = try iterator.next()
            return iterator
        }
        // The iterator keeps its transaction's context alive; loads outside still see no transaction.
        #expect(try persistence.load(Tally.self, Tally.identifier(5))?.number == 5)
        do {
            _ = try iterator.next()
            Issue.record("a sequence begun in a transaction went on after it")
        } catch DocumentStoreError.misuse {
        }
    }
}
