@testable import DaliSampleClient
import DocumentStore
import FileStorageKit
import Foundation
import Testing
import TestSupport

/// Dali's sample client (its newest Shapes.swift and Graph.swift, in `Tests/DaliSampleClient`) doing
/// what Dali's own tests (DaliTests.swift at the same commit) check, written against this API: each
/// test names the Dali test it follows and the spelling it had there.
@Suite struct DaliSampleClientTests {
    /// Dali's `setUp`: `Persistence(databaseName: "dali_tests")` and a `register` per class. The
    /// `directories:` argument keeps the test's store out of the user's application-support folder.
    final class Fixture {
        let folder: TemporaryFolder
        let persistence: Persistence

        init(_ name: String) throws {
            folder = try TemporaryFolder(prefix: name)
            persistence = try Persistence(databaseName: "dali_tests",
                                          directories: AppDirectories(appName: "dali", root: folder.url))
            persistence.register(persistableKind: Circle.self)
            persistence.register(persistableKind: Square.self)
            persistence.register(persistableKind: VennDiagram.self)
            persistence.register(persistableKind: LazySquare.self)
            persistence.register(persistableKind: Chain.self)
        }

        /// A second `Persistence` on the same file, so everything is read back from it.
        func reopen() throws -> Persistence {
            let other = try Persistence(configuration: persistence.configuration)
            other.register(persistableKind: Circle.self)
            other.register(persistableKind: Square.self)
            other.register(persistableKind: VennDiagram.self)
            other.register(persistableKind: LazySquare.self)
            other.register(persistableKind: Chain.self)
            return other
        }

        /// Dali's `tearDown`.
        func tearDown() throws {
            try persistence.deleteDatabase()
            #expect(!FileManager.default.fileExists(atPath: persistence.url.path))
        }
    }

    /// testSavedSquare: `try s1.save(Transaction(on: persistence))`; the class has no save(to:) and a
    /// `let identifier`.
    @Test func aSquareWithNoSaveMethodSavesItsPropertiesAndLoadsBackUnderItsOwnIdentifier() throws {
        let fixture = try Fixture("dali-client-square")
        let s1 = Square(side: 3)
        try s1.save(to: fixture.persistence)
        #expect(try fixture.persistence.snapshot(s1.identifier)?.body == ["side": 3.0])
        let s2: Square? = try fixture.reopen().load(s1.identifier)
        #expect(s2?.side == 3 && s2?.area == 9)
        #expect(s2?.identifier == s1.identifier, "the let identifier was given the document's")
        try fixture.tearDown()
    }

    /// testCachedSquareIsSame and testRetrievedSquaresAreSame.
    @Test func oneInstancePerIdentifierWhileHeld() throws {
        let fixture = try Fixture("dali-client-cached")
        let s1 = Square(side: 3)
        try fixture.persistence.save(s1)
        let s2: Square? = try fixture.persistence.load(s1.identifier)
        #expect(s1 === s2)
        let identifier = try { () throws -> String in
            let square = Square(side: 2)
            try fixture.persistence.save(square)
            return square.identifier
        }()
        #expect(!fixture.persistence.isCached(identifier: identifier))
        let s3: Square? = try fixture.persistence.load(identifier)
        let s4: Square? = try fixture.persistence.load(identifier)
        #expect(s3 != nil && s3 === s4)
        try fixture.tearDown()
    }

    /// testWrongKind: Dali's `PersistenceError.KindMismatch(expected, actual)` is `wrongKind` here.
    @Test func theWrongKindIsATypedError() throws {
        let fixture = try Fixture("dali-client-kind")
        let square = Square(side: 2)
        try fixture.persistence.save(square)
        #expect(throws: DocumentStoreError.wrongKind(identifier: square.identifier, expected: "Circle", found: "Square")) {
            let _: Circle? = try fixture.reopen().load(square.identifier)
        }
        try fixture.tearDown()
    }

    /// testNested: the diagram's circles are saved by reflection as identifiers, with the diagram.
    @Test func aVennDiagramSavesItsCirclesByReflection() throws {
        let fixture = try Fixture("dali-client-venn")
        let venn = VennDiagram(left: Circle(radius: 3), right: Circle(radius: 4))
        try fixture.persistence.save(venn)
        #expect(try fixture.persistence.snapshot(venn.identifier)?.body
                == ["left": .string(venn.left.identifier), "right": .string(venn.right.identifier)])
        let v1: VennDiagram? = try fixture.reopen().load(venn.identifier)
        #expect(v1?.left.radius == 3 && v1?.right.radius == 4)
        #expect(v1?.left.identifier == venn.left.identifier)
        try fixture.tearDown()
    }

    /// testLazy, and what Dali lost: saving a loaded LazySquare whose `lazy var` was never read keeps
    /// its square (Dali wrote `null`).
    @Test func aLazySquaresSquareLoadsOnFirstUseAndSurvivesASaveBeforeThat() throws {
        let fixture = try Fixture("dali-client-lazy")
        let square = Square(side: 5)
        let lazy = LazySquare(square: square)
        try fixture.persistence.save(lazy)
        #expect(try fixture.persistence.snapshot(lazy.identifier)?.body == ["square": .string(square.identifier)],
                "persistence and squareIdentifier are mapped to nil")
        do {
            let other = try fixture.reopen()
            let l1: LazySquare = try #require(try other.load(lazy.identifier))
            #expect(!other.isCached(identifier: square.identifier))
            try other.save(l1)
            #expect(try other.snapshot(lazy.identifier)?.body == ["square": .string(square.identifier)])
            #expect(l1.square?.area == 25)
            #expect(other.isCached(identifier: square.identifier))
        }
        try fixture.tearDown()
    }

    /// test2Links and testLoop.
    @Test func chainsSaveTheirLinksAndLoops() throws {
        let fixture = try Fixture("dali-client-chain")
        let identifier = try { () throws -> String in
            let link1 = Chain(link: Circle(radius: 1))
            link1.next = Chain(link: Circle(radius: 2))
            try fixture.persistence.save(link1)
            return link1.identifier
        }()
        let link1: Chain? = try fixture.reopen().load(identifier)
        #expect(link1?.link.radius == 1 && link1?.next?.link.radius == 2 && link1?.next?.next == nil)

        let loop1 = Chain(link: Circle(radius: 1))
        let loop2 = Chain(link: Circle(radius: 2))
        loop1.next = loop2
        loop2.next = loop1
        try fixture.persistence.save(loop1)
        let held: Chain? = try fixture.persistence.load(loop1.identifier)
        #expect(held === loop1 && held?.next?.next === loop1)
        // From the file, the loop is two eager loads of each other: a typed error, not Dali's recursion.
        #expect(throws: DocumentStoreError.cyclicLoad(identifier: loop1.identifier)) {
            let _: Chain? = try fixture.reopen().load(loop1.identifier)
        }
        loop2.next = nil   // Dali's loop leaks both links; end it
        try fixture.tearDown()
    }

    /// testLoadAllLazy and testLoadAllCachedSame (`loadAll(Square.self)` in Swift 2), then testLoadAll.
    @Test func loadAllBuildsNothingUntilIteratedAndGivesCachedInstances() throws {
        let fixture = try Fixture("dali-client-loadall")
        let identifier = try { () throws -> String in
            let square = Square(side: 3)
            try fixture.persistence.save(square)
            return square.identifier
        }()
        #expect(!fixture.persistence.isCached(identifier: identifier))
        let squares = try fixture.persistence.loadAll(kind: Square.self)
        #expect(!fixture.persistence.isCached(identifier: identifier))
        var iterator = squares.makeIterator()
        let square = try iterator.next()
        #expect(square?.side == 3)
        #expect(fixture.persistence.isCached(identifier: identifier))
        #expect(try fixture.persistence.loadAll(kind: Square.self).first { _ in true } === square, "the cached instance")

        try fixture.persistence.transaction { persistence in
            for d in stride(from: 1.0, to: 100.0, by: 1.0) {
                try Square(side: d).save(to: persistence)
                try Circle(radius: d).save(to: persistence)
            }
        }
        var seen = Set<Double>()
        try fixture.persistence.loadAll(kind: Square.self).forEach { seen.insert($0.side) }
        #expect(seen == Set(stride(from: 1.0, to: 100.0, by: 1.0)))
        try fixture.tearDown()
    }

    /// Graph.swift: nodes and edges save themselves through `jsonify` and `~~>`.
    @Test func theGraphSavesThroughGlossOperatorsAndItsCyclesAreATypedErrorFromAFreshStore() throws {
        let fixture = try Fixture("dali-client-graph")
        fixture.persistence.register(persistableKind: Node.self)
        fixture.persistence.register(persistableKind: Edge.self)
        let a = Node(), b = Node(), c = Node()
        a.connectTo(node: b, weight: 2)
        b.connectTo(node: c, weight: 3)
        a.connectTo(node: c, weight: 7)
        try fixture.persistence.transaction { persistence in
            for node in [a, b, c] {
                try persistence.save(node)
                for edge in node.outEdges { try persistence.save(edge) }
            }
        }
        let stored = try #require(try fixture.persistence.snapshot(a.identifier)?.body)
        #expect(stored["labels"] == [])
        #expect(Set(stored["outEdges"]?.arrayStrings ?? []) == Set(a.outEdges.map(\.identifier)))
        let loaded: Node? = try fixture.persistence.load(a.identifier)
        #expect(loaded === a && loaded?.minDistance(destination: c) == 7, "Dali returns the first direct edge, not the shortest path")
        // Every edge loads its `from` node, which loads the edge: Dali recursed until the stack ran out.
        do {
            let other = try fixture.reopen()
            other.register(persistableKind: Node.self)
            other.register(persistableKind: Edge.self)
            #expect(throws: DocumentStoreError.cyclicLoad(identifier: a.identifier)) {
                let _: Node? = try other.load(a.identifier)
            }
        }
        try fixture.tearDown()
    }
}

extension JSON {
    /// The strings of an array value.
    var arrayStrings: [String]? {
        guard case .array(let items) = self else { return nil }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }
}
