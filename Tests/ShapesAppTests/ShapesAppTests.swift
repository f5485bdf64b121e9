import DocumentStore
import Foundation
import ShapesKit
import Testing
import TestSupport

/// The `shapes` sample app: its `--where` parser, and the built binary run end to end as its README shows.
@Suite struct ShapesAppTests {
    func run(_ arguments: [String]) async throws -> ChildProcess {
        let child = try ChildProcess.start(try ChildProcess.builtProgram("shapes"), arguments)
        _ = try await child.waitForExit(deadline: .now + .seconds(60))
        return child
    }

    @Test func whereClausesParseIntoTypedPredicates() throws {
        func sql(_ text: String) throws -> String {
            "\(try WhereClause.parse(text))"
        }
        #expect(try sql("radius > 1") == "\(DocumentPredicate.comparison("radius", .greater, .integer(1)))")
        #expect(try sql("area<=2.5") == "\(DocumentPredicate.comparison("area", .lessOrEqual, .double(2.5)))")
        #expect(try sql("name = 'big one'") == "\(DocumentPredicate.comparison("name", .equal, .string("big one")))")
        #expect(try sql("name like \"b%\"") == "\(DocumentPredicate.like("name", "b%"))")
        #expect(try sql("flag != true") == "\(DocumentPredicate.comparison("flag", .notEqual, .bool(true)))")
        #expect(throws: WhereClause.ParseError.self) { try WhereClause.parse("radius") }
        #expect(throws: WhereClause.ParseError.self) { try WhereClause.parse("> 1") }
        #expect(throws: WhereClause.ParseError.self) { try WhereClause.parse("radius >") }
        #expect(throws: WhereClause.ParseError.self) { try WhereClause.parse("r'); DROP TABLE documents; -- > 1") }
        #expect(throws: WhereClause.ParseError.self) { try WhereClause.parse("name = 'open") }
        #expect(throws: WhereClause.ParseError.self) { try WhereClause.parse("name like 3") }
    }

    @Test func addVennListShowDelete() async throws {
        let folder = try TemporaryFolder(prefix: "shapes-app")
        let store = folder.url.path
        let square = try await run(["add", "square", "3", "--store", store])
        let small = try await run(["add", "circle", "1", "--store", store])
        let big = try await run(["add", "circle", "2", "--store", store])
        let ids = [square, small, big].map { $0.standardOutput.trimmingCharacters(in: .newlines) }
        #expect([square, small, big].allSatisfy { $0.termination == .exited(0) } && Set(ids).count == 3)

        let venn = try await run(["venn", ids[1], ids[2], "--store", store])
        let vennID = venn.standardOutput.trimmingCharacters(in: .newlines)
        #expect(venn.termination == .exited(0) && !vennID.isEmpty)
        let notCircle = try await run(["venn", ids[0], ids[2], "--store", store])
        #expect(notCircle.termination == .exited(1) && notCircle.standardError.contains("is a Square, not a Circle"), "\(notCircle.standardError)")

        let circles = try await run(["list", "--kind", "Circle", "--where", "radius > 1", "--sort", "area", "--store", store])
        #expect(circles.outputLines == ["\(ids[2])  Circle  area 12.566  radius 2.000"], "\(circles.standardOutput)")
        let shapes = try await run(["list", "--sort", "area", "--descending", "--store", store])
        #expect(shapes.outputLines.map { $0.split(separator: " ").first.map(String.init) ?? "" } == [ids[2], ids[0], ids[1]])
        let bad = try await run(["list", "--where", "radius >", "--store", store])
        #expect(bad.termination == .exited(64) && bad.standardError.contains("no value after the operator"), "\(bad.standardError)")

        let shown = try await run(["show", vennID, "--store", store])
        #expect(shown.outputLines.contains("loading left circle \(ids[1]) lazily (loaded before: false)"), "\(shown.standardOutput)")
        #expect(shown.outputLines.contains("  right: radius 2.0, area 12.566"), "\(shown.standardOutput)")

        let deleted = try await run(["delete", ids[1], "--store", store])
        #expect(deleted.outputLines == ["deleted \(ids[1])"])
        let broken = try await run(["show", vennID, "--store", store])
        #expect(broken.termination == .exited(1) && broken.standardError.contains("no Circle document \(ids[1])"), "\(broken.standardError)")
    }

    @Test func watchPrintsWhatAnotherProcessSaves() async throws {
        let folder = try TemporaryFolder(prefix: "shapes-watch")
        let store = folder.url.path
        _ = try await run(["add", "circle", "1", "--store", store])
        let watcher = try ChildProcess.start(try ChildProcess.builtProgram("shapes"),
                                             ["watch", "--kind", "Circle", "--where", "radius > 2", "--count", "1", "--seconds", "60", "--store", store])
        _ = try await watcher.waitForLine(deadline: .now + .seconds(60)) { $0.hasPrefix("watching") }
        let added = try await run(["add", "circle", "5", "--store", store])
        let id = added.standardOutput.trimmingCharacters(in: .newlines)
        _ = try await watcher.waitForExit(deadline: .now + .seconds(60))
        #expect(watcher.termination == .exited(0))
        #expect(watcher.outputLines.first == "watching: 0 documents")
        #expect(watcher.outputLines.dropFirst().first == "update 1: 1 documents")
        #expect(watcher.outputLines.contains { $0.contains(id) && $0.contains("radius 5.000") }, "\(watcher.standardOutput)")
    }
}
