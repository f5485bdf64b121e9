import DocumentStore
import DocumentTestModel
import Foundation
import GRDB
import Testing
import TestSupport

/// A damaged file, a full disk, a read-only folder, malformed JSON and an unregistered kind: each a
/// typed error, nothing lost, never a crash.
@Suite struct DocumentFaultTests {
    static func makeStore(_ folder: URL, circles: Int) throws {
        let persistence = try Persistence(url: folder.appendingPathComponent("Store.sqlite"))
        try persistence.transaction { p in
            for index in 0..<circles {
                let circle = Circle(radius: Double(index))
                circle.identifier = "circle-\(index)"
                try p.save(circle)
            }
        }
    }

    static func circleCount(_ folder: URL) throws -> Int {
        try Persistence(url: folder.appendingPathComponent("Store.sqlite")).query(Circle.self).count()
    }

    @Test func malformedStoredJSONIsATypedErrorNamingTheDocumentAndOffset() throws {
        let store = try TestStore("doc-malformed")
        try store.persistence.save(Item(identifier: "good", body: ["a": 1]))
        let queue = try DatabaseQueue(path: store.url.path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO documents(id, kind, revision, deleted, body) VALUES ('bad', 'Item', '1-x', 0, '{\"a\": [1, 2')")
        }
        try queue.close()
        #expect(throws: DocumentStoreError.malformedJSON(identifier: "bad", offset: 11, reason: "unexpected end of text in an array")) {
            let _: Item? = try store.persistence.load("bad")
        }
        #expect(throws: DocumentStoreError.self) { _ = try store.persistence.query(Item.self).fetch() }
        let good: Item? = try store.persistence.load("good")
        #expect(good?.body == ["a": 1], "other documents still load")
    }

    @Test func anUnregisteredKindAndARejectedDocumentAreTypedErrors() throws {
        let store = try TestStore("doc-unregistered")
        let queue = try DatabaseQueue(path: store.url.path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO documents(id, kind, revision, deleted, body) VALUES ('t', 'Triangle', '1-x', 0, '{}')")
            try db.execute(sql: "INSERT INTO documents(id, kind, revision, deleted, body) VALUES ('s', 'Square', '1-x', 0, '{\"sides\":4}')")
        }
        try queue.close()
        #expect(throws: DocumentStoreError.unregisteredKind(kind: "Triangle", identifier: "t")) {
            let _: Shape? = try store.persistence.load("t")
        }
        #expect(throws: DocumentStoreError.documentRejected(identifier: "s", kind: "Square")) {
            let _: Shape? = try store.persistence.load("s")
        }
    }

    @Test func aStoreFromANewerProgramIsATypedError() throws {
        let store = try TestStore("doc-newer")
        let queue = try DatabaseQueue(path: store.url.path)
        try queue.write { db in try db.execute(sql: "PRAGMA user_version = 7") }
        try queue.close()
        #expect(throws: DocumentStoreError.schemaNewerThanProgram(file: store.url.path, version: 7)) {
            _ = try store.reopen()
        }
    }

    @Test func aVersionOneStoreIsUpgradedWhenOpenedAndKeepsItsDocuments() throws {
        let store = try TestStore("doc-upgrade")
        try store.persistence.save(Square(side: 2))
        // What version 1 was: no index of the feed by document.
        let queue = try DatabaseQueue(path: store.url.path)
        try queue.write { db in
            try db.execute(sql: "DROP INDEX changes_by_document")
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        let reopened = try store.reopen()
        #expect(try reopened.rawCount("documents") == 1)
        let (version, indexes) = try queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try db.indexes(on: "changes").map(\.name))
        }
        #expect(version == 2)
        #expect(indexes.contains("changes_by_document"))
        try queue.close()
    }

    @Test func malformedJSONTextIsRefusedWithItsOffset() throws {
        let cases: [(String, Int)] = [("{\"a\":}", 5), ("[1,]", 3), ("01", 1), ("\"\\x\"", 3), ("{\"a\":1,\"a\":2}", 12), ("nul", 0), ("[1] 2", 4)]
        for (text, offset) in cases {
            #expect {
                _ = try JSON(parsing: text)
            } throws: { error in
                guard case DocumentStoreError.malformedJSON(nil, let at, _) = error else { return false }
                return at == offset
            }
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: DocumentStoreError.self, "nesting is bounded, so hostile input cannot exhaust the stack") { _ = try JSON(parsing: deep) }
        #expect(try JSON(parsing: #" {"b": [1, 2.5, -0.0, 1e3, "\u00e9\ud83d\ude00"], "a": null} "#).canonicalText
                == #"{"a":null,"b":[1,2.5,-0.0,1000.0,"é😀"]}"#)
    }
}
