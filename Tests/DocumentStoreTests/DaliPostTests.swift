import DocumentStore
import DocumentTestModel
import Foundation
import Synchronization
import Testing
import TestSupport

/// The post's classes, as published (with the spelling changes listed in DaliShapes.swift), doing what
/// the post says they do.
@Suite struct DaliPostTests {
    @Test func eachKindSavesAndLoadsBack() throws {
        let store = try TestStore("dali-kinds")
        let square = Square(side: 3)
        let circle = Circle(radius: 2)
        let plain = Shape()
        for shape in [square, circle, plain] { try store.persistence.save(shape) }
        let other = try store.reopen()   // a fresh identity map: everything comes from the file
        let loadedSquare: Square? = try other.load(square.identifier)
        let loadedCircle: Circle? = try other.load(circle.identifier)
        let loadedShape: Shape? = try other.load(plain.identifier)
        #expect(loadedSquare?.side == 3 && loadedSquare?.area == 9)
        #expect(loadedCircle?.radius == 2 && loadedCircle.map { abs($0.area - 4 * Double.pi) < 1e-12 } == true)
        #expect(loadedShape.map { type(of: $0) == Shape.self } == true && loadedShape?.area == 0)
        #expect(loadedSquare?.identifier == square.identifier, "the store sets the stored identifier")
        #expect(try store.persistence.snapshot(square.identifier)?.body == ["side": 3.0])
        #expect(try store.persistence.snapshot(square.identifier)?.kind == "Square")
    }

    @Test func aShapeLoadsAsItsStoredSubclassAndTheWrongKindIsATypedError() throws {
        let store = try TestStore("dali-hierarchy")
        let square = Square(side: 4)
        try store.persistence.save(square)
        let other = try store.reopen()
        let shape: Shape? = try other.load(square.identifier)
        #expect(shape is Square, "a Shape asked for, the stored Square given")
        #expect(throws: DocumentStoreError.wrongKind(identifier: square.identifier, expected: "Circle", found: "Square")) {
            let _: Circle? = try other.load(square.identifier)
        }
        // A store that never registered Square cannot build one: a typed error, not a Circle or a crash.
        let third = try Persistence(configuration: store.persistence.configuration)
        #expect(throws: DocumentStoreError.unregisteredKind(kind: "Square", identifier: square.identifier)) {
            let _: Circle? = try third.load(square.identifier)
        }
        let all = try other.loadAllAtOnce(kind: Shape.self)
        #expect(all.count == 1 && all.first === shape)
        let lazily = try Array(other.loadAll(kind: Shape.self))
        #expect(lazily.count == 1 && lazily.first === shape)
    }

    @Test func vennDiagramSavesItsCirclesInOneTransactionAndLoadsThemBack() throws {
        let store = try TestStore("dali-venn")
        let venn = VennDiagram(left: Circle(radius: 1), right: Circle(radius: 2))
        try store.persistence.save(venn)
        #expect(try store.count("documents") == 3)
        let sequences = try store.persistence.changes().map(\.sequence)
        #expect(sequences == [1, 2, 3])
        let other = try store.reopen()
        let loaded: VennDiagram? = try other.load(venn.identifier)
        #expect(loaded?.left.radius == 1 && loaded?.right.radius == 2)
        #expect(loaded?.left.identifier == venn.left.identifier)
        let left: Circle? = try other.load(venn.left.identifier)
        #expect(left === loaded?.left, "the diagram's circle is the identity map's instance")
    }

    @Test func aLoadedGraphSavedAgainCreatesNoNewDocumentsOrRevisions() throws {
        let store = try TestStore("dali-resave")
        let venn = VennDiagram(left: Circle(radius: 1), right: Circle(radius: 2))
        try store.persistence.save(venn)
        let other = try store.reopen()
        let loaded: VennDiagram = try #require(try other.load(venn.identifier))
        let revision = other.revision(of: loaded)
        try other.save(loaded)
        try loaded.save(to: other)   // the post's own way, one transaction per document
        #expect(try store.count("documents") == 3)
        #expect(try store.count("changes") == 3, "saving what is stored writes no revision")
        #expect(other.revision(of: loaded) == revision && revision != nil)
    }

    @Test func aGraphSaveIsAllOrNothing() throws {
        let store = try TestStore("dali-atomic")
        let circle = Circle(radius: 1)
        try store.persistence.save(circle)
        // Another instance claims the circle's identifier: its save conflicts, so the diagram fails whole.
        let impostor = Circle(radius: 9)
        impostor.identifier = circle.identifier
        let venn = VennDiagram(left: Circle(radius: 5), right: impostor)
        #expect(throws: DocumentStoreError.self) { try store.persistence.save(venn) }
        #expect(try store.count("documents") == 1, "neither the left circle nor the diagram was written")
        #expect(store.persistence.revision(of: venn.left) == nil)
        #expect(try store.persistence.snapshot(circle.identifier)?.body == ["radius": 1.0])
    }

    @Test func lazySquareLoadsItsSquareOnFirstUse() throws {
        let store = try TestStore("dali-lazy")
        let lazy = LazySquare(square: Square(side: 5))
        try store.persistence.save(lazy)
        let other = try store.reopen()
        let loaded: LazySquare = try #require(try other.load(lazy.identifier))
        let squareID = try #require(lazy.square?.identifier)
        #expect(!other.isCached(identifier: squareID), "not loaded until used")
        #expect(loaded.square?.side == 5)
        #expect(other.isCached(identifier: squareID))
        // Without a square.
        let empty = try #require(try LazySquare(with: [:], from: other))
        try other.save(empty)
        let reloaded: LazySquare? = try store.reopen().load(empty.identifier)
        #expect(reloaded != nil && reloaded?.square == nil)
    }

    @Test func theIdentityMapGivesOneInstanceWhileHeldAndANewOneAfterRelease() throws {
        let store = try TestStore("dali-identity")
        let square = Square(side: 2)
        let id = square.identifier
        try store.persistence.save(square)
        let other = try store.reopen()
        weak var weakFirst: Square?
        var firstIdentifier: ObjectIdentifier?
        do {
            let first: Square? = try other.load(id)
            let second: Square? = try other.load(id)
            #expect(first != nil && first === second, "same instance while held")
            #expect(other.isCached(identifier: id))
            weakFirst = first
            firstIdentifier = first.map(ObjectIdentifier.init)
        }
        #expect(weakFirst == nil, "the map holds its objects weakly")
        #expect(!other.isCached(identifier: id))
        let third: Square? = try other.load(id)
        #expect(third != nil && third?.side == 2)
        _ = firstIdentifier
    }

    @Test func concurrentLoadsOnManyThreadsShareOneInstance() async throws {
        let store = try TestStore("dali-threads")
        let square = Square(side: 7)
        try store.persistence.save(square)
        let other = try store.reopen()
        let id = square.identifier
        final class Arrivals: Sendable { let count = Atomic<Int>(0) }
        let arrivals = Arrivals()
        let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    guard let loaded: Square = try other.load(id) else { throw DocumentStoreError.missingDocument(identifier: id, kind: "Square") }
                    // Hold each instance until every task has loaded, so they must all be one.
                    arrivals.count.add(1, ordering: .relaxed)
                    let deadline = ContinuousClock.now + .seconds(120)
                    while arrivals.count.load(ordering: .relaxed) < 16 && ContinuousClock.now < deadline { await Task.yield() }
                    return withExtendedLifetime(loaded) { ObjectIdentifier(loaded) }
                }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(identities.count == 1, "16 tasks, one instance")
    }
}
