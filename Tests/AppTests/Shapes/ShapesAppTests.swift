import CommandSupport
import DocumentStore
import Foundation
import ShapesKit
import Testing
import TestSupport

/// The `shapes` sample app: its `--where` parser, and its commands run as its README shows, in-process
/// and (where another process is the point) as the built program. Every store is in its own
/// temporary folder, passed with `--store`.
@Suite struct ShapesAppTests {
    /// Runs `shapes arguments --store folder` in-process, to the end.
    func run(_ arguments: [String], store: TemporaryFolder) async -> CommandRun {
        await ShapesCommand.runCaptured(arguments + ["--store", store.url.path])
    }

    /// Runs a command that prints one identifier, and returns it.
    func identifier(_ arguments: [String], store: TemporaryFolder) async throws -> String {
        let run = await run(arguments, store: store)
        #expect(run.status == 0, "\(arguments): \(run.errors)")
        let lines = run.outputLines
        try #require(lines.count == 1 && !lines[0].isEmpty, "\(arguments) printed \(lines)")
        return lines[0]
    }

    // MARK: - The --where parser

    /// The parts of a comparison, for checks (`DocumentPredicate` is not `Equatable`).
    func comparison(_ text: String) throws -> (field: String, op: ComparisonOperator, value: JSON)? {
        guard case .comparison(let field, let op, let value) = try WhereClause.parse(text) else { return nil }
        return ("\(field)", op, value)
    }

    @Test func comparisonsParseIntoTypedPredicates() throws {
        let cases: [(String, String, ComparisonOperator, JSON)] = [
            ("radius > 1", "radius", .greater, .integer(1)),
            ("area<=2.5", "area", .lessOrEqual, .double(2.5)),
            ("  area >= -1e3 ", "area", .greaterOrEqual, .double(-1000)),
            ("radius = 2", "radius", .equal, .integer(2)),
            ("radius == 2", "radius", .equal, .integer(2)),
            ("radius != 2", "radius", .notEqual, .integer(2)),
            ("radius <> 2", "radius", .notEqual, .integer(2)),
            ("radius < 2", "radius", .less, .integer(2)),
            ("name = 'big one'", "name", .equal, .string("big one")),
            ("name = \"a <= b\"", "name", .equal, .string("a <= b")),
            ("name = big one", "name", .equal, .string("big one")),
            ("name = '42'", "name", .equal, .string("42")),
            ("flag != true", "flag", .notEqual, .bool(true)),
            ("flag = false", "flag", .equal, .bool(false)),
            ("owner.name = Ann", "owner.name", .equal, .string("Ann")),
            ("tags[0] = red", "tags[0]", .equal, .string("red")),
            ("name = inf", "name", .equal, .string("inf")),
        ]
        for (text, field, op, value) in cases {
            let parsed = try #require(try comparison(text), "\(text)")
            #expect(parsed.field == field && parsed.op == op && parsed.value == value, "\(text) gave \(parsed)")
        }
        for text in ["name like 'b%'", "name LIKE b%", "name like\"b%\""] {
            guard case .like(let field, let pattern) = try WhereClause.parse(text) else {
                Issue.record("\(text) is not a like")
                continue
            }
            #expect("\(field)" == "name" && pattern == "b%", "\(text)")
        }
    }

    @Test func badConditionsSayWhatIsWrong() {
        let cases: [(String, String)] = [
            ("", "it is empty"),
            ("radius", "no operator after radius"),
            ("> 1", "expected a field name, found \">\""),
            ("radius >", "no value after >"),
            ("radius ~ 1", "unknown operator \"~\""),
            ("radius is 1", "unknown operator \"is\""),
            ("1radius > 1", "must start with a letter or _"),
            ("a..b > 1", "empty key"),
            ("tags[x] = 1", "an array position must be a number"),
            ("name = 'open", "has no closing '"),
            ("name like 3", "like needs a text pattern"),
            ("radius = null", "null matches no comparison"),
            ("radius > 1.2.3", "1.2.3 is not a number"),
            ("r'); DROP TABLE documents; -- > 1", "unknown operator \"'\" after r"),
        ]
        for (text, reason) in cases {
            #expect {
                try WhereClause.parse(text)
            } throws: { error in
                guard let error = error as? WhereClause.ParseError else { return false }
                return error.text == text && error.reason.contains(reason)
            }
        }
        let error = #expect(throws: WhereClause.ParseError.self) { try WhereClause.parse("radius >") }
        #expect(error?.position == 8 && error?.description.hasPrefix("cannot read the condition \"radius >\" at character 9") == true)
    }

    // MARK: - The commands, end to end

    @Test func addVennListShowDelete() async throws {
        let store = try TemporaryFolder(prefix: "shapes-app")
        let square = try await identifier(["add", "square", "3"], store: store)
        let small = try await identifier(["add", "circle", "1"], store: store)
        let big = try await identifier(["add", "circle", "2"], store: store)
        #expect(Set([square, small, big]).count == 3)
        let venn = try await identifier(["venn", small, big], store: store)

        let circles = await run(["list", "--kind", "Circle", "--where", "radius > 1", "--sort", "area"], store: store)
        #expect(circles.outputLines == ["\(big)  Circle  radius 2  area 12.566"], "\(circles.output)")
        let shapes = await run(["list", "--sort", "area", "--descending"], store: store)
        #expect(shapes.outputLines == ["\(big)  Circle  radius 2  area 12.566", "\(square)  Square  side 3  area 9",
                                       "\(small)  Circle  radius 1  area 3.142"], "\(shapes.output)")
        let limited = await run(["list", "--sort", "area", "--limit", "1"], store: store)
        #expect(limited.outputLines == ["\(small)  Circle  radius 1  area 3.142"])
        let diagrams = await run(["list", "--kind", "VennDiagram"], store: store)
        #expect(diagrams.outputLines == ["\(venn)  VennDiagram  left \(small)  right \(big)"])
        // A value with SQL in it is a bound parameter: it matches nothing and harms nothing.
        let injected = await run(["list", "--where", "side = '3; DROP TABLE documents; --'"], store: store)
        #expect(injected.status == 0 && injected.outputLines.isEmpty, "\(injected.errors)")
        let squares = await run(["list", "--kind", "Square", "--where", "side >= 3"], store: store)
        #expect(squares.outputLines == ["\(square)  Square  side 3  area 9"])

        let shown = await run(["show", venn], store: store)
        let lines = shown.outputLines
        #expect(lines.first == "VennDiagram \(venn)" && lines.dropFirst().first?.hasPrefix("  revision 1-") == true, "\(lines)")
        #expect(Array(lines.dropFirst(2)) == [
            "  left \(small)", "  right \(big)",
            "loading left circle \(small) lazily", "  left: radius 1  area 3.142",
            "loading right circle \(big) lazily", "  right: radius 2  area 12.566",
        ], "\(lines)")
        let circle = await run(["show", big], store: store)
        #expect(circle.outputLines.first == "Circle \(big)" && circle.outputLines.suffix(2) == ["  radius 2", "  area 12.566"])

        let deleted = await run(["delete", small], store: store)
        #expect(deleted.outputLines == ["deleted Circle \(small)",
                                        "note: VennDiagram \(venn) still names it; showing that diagram will fail"])
        let broken = await run(["show", venn], store: store)
        #expect(broken.status == 1 && broken.errors == "shapes: no Circle document \(small)\n",
                "\(broken.errors)")
        let after = await run(["list", "--kind", "Circle"], store: store)
        #expect(after.outputLines == ["\(big)  Circle  radius 2  area 12.566"])
    }

    @Test func errorsGoToStandardErrorWithAStatus() async throws {
        let store = try TemporaryFolder(prefix: "shapes-errors")
        let square = try await identifier(["add", "square", "2"], store: store)
        let circle = try await identifier(["add", "circle", "1"], store: store)

        let notCircle = await run(["venn", circle, square], store: store)
        #expect(notCircle.status == 1 && notCircle.outputLines.isEmpty)
        #expect(notCircle.errors == "shapes: \(ShapesError.notACircle(identifier: square, kind: "Square"))\n",
                "\(notCircle.errors)")
        let missing = await run(["venn", circle, "no-such-id"], store: store)
        #expect(missing.status == 1 && missing.errors == "shapes: no document no-such-id\n",
                "\(missing.errors)")
        for command in [["show", "no-such-id"], ["delete", "no-such-id"]] {
            let result = await run(command, store: store)
            #expect(result.status == 1 && result.errors == "shapes: no document no-such-id\n", "\(command)")
        }

        let badWhere = await run(["list", "--where", "radius >"], store: store)
        #expect(badWhere.status == 64 && badWhere.errors.contains("no value after >"), "\(badWhere.errors)")
        let badKind = await run(["list", "--kind", "Triangle"], store: store)
        #expect(badKind.status == 64 && badKind.errors.contains("Triangle"), "\(badKind.errors)")
        let badSize = await run(["add", "circle", "-1"], store: store)
        #expect(badSize.status == 64, "\(badSize.errors)")
        let badShape = await run(["add", "triangle", "1"], store: store)
        #expect(badShape.status == 64, "\(badShape.errors)")

        // A store file that is not a database: moved aside (DocumentStore's policy), said on standard
        // error as `shapes: <description>`, and the command runs on a new store.
        let garbage = try TemporaryFolder(prefix: "shapes-garbage")
        try Data(repeating: 0x41, count: 4096).write(to: ShapesStore.url(folder: garbage.url))
        let corrupt = await run(["list"], store: garbage)
        #expect(corrupt.status == 0 && corrupt.errors.hasPrefix("shapes: ")
                && corrupt.errors.contains("Shapes.sqlite") && corrupt.errors.contains("moved to"), "\(corrupt.errors)")
        let moved = try FileManager.default.contentsOfDirectory(atPath: garbage.url.path).filter { $0.contains(".corrupt-") }
        #expect(moved.count == 1, "the damaged file is kept beside the new store: \(moved)")
    }

    @Test func watchPrintsWhatAnotherProcessSaves() async throws {
        let store = try TemporaryFolder(prefix: "shapes-watch")
        let small = try await identifier(["add", "circle", "1"], store: store)
        let watcher = try ChildProcess.start(try ChildProcess.builtProgram("shapes"), [
            "watch", "--kind", "Circle", "--where", "radius > 2", "--count", "1", "--seconds", "600", "--store", store.url.path,
        ])
        let ready = try await watcher.waitForLine(deadline: .now + .seconds(180)) { $0.hasPrefix("watching") }
        #expect(ready == "watching: 0 documents")
        // Saves the watcher's query does not match change nothing it prints.
        _ = try await identifier(["add", "circle", "2"], store: store)
        let added = try await identifier(["add", "circle", "5"], store: store)
        let ended = try await watcher.waitForExit(deadline: .now + .seconds(180))
        #expect(ended == .exited(0), "\(watcher.standardError)")
        #expect(watcher.outputLines == ["watching: 0 documents", "update 1: 1 documents", "  \(added)  Circle  radius 5  area 78.54"],
                "\(watcher.standardOutput)")
        #expect(!watcher.standardOutput.contains(small))
    }

    @Test func watchStopsAtItsTimeLimit() async throws {
        let store = try TemporaryFolder(prefix: "shapes-watch-time")
        let circle = try await identifier(["add", "circle", "3"], store: store)
        let started = ContinuousClock.now
        let watcher = await run(["watch", "--kind", "Circle", "--seconds", "1"], store: store)
        #expect(watcher.status == 0, "\(watcher.errors)")
        #expect(watcher.outputLines == ["watching: 1 documents", "  \(circle)  Circle  radius 3  area 28.274",
                                        "stopped after 1 s with 0 updates"], "\(watcher.output)")
        #expect(ContinuousClock.now - started >= .seconds(1))
    }

    @Test func aCancelledWatchEndsPromptly() async throws {
        let store = try TemporaryFolder(prefix: "shapes-watch-cancel")
        let watch = ShapesCommand.start(["watch", "--kind", "Circle", "--seconds", "600", "--store", store.url.path])
        // Generous deadlines: the whole suite shares this process's two pool threads.
        try await watch.waitForLine(deadline: .now + .seconds(120)) { $0 == "watching: 0 documents" }
        watch.cancel()
        let status = try await watch.waitForExit(deadline: .now + .seconds(180))
        #expect(status == ShapesCommand.cancelledStatus, "\(watch.captured.errors)")
        #expect(!watch.captured.output.contains("stopped after"), "\(watch.captured.output)")
    }

    @Test func theProgramsExitStatusAndStandardError() async throws {
        let store = try TemporaryFolder(prefix: "shapes-program")
        let missing = try await BuiltProgram.run("shapes", ["show", "no-such-id", "--store", store.url.path])
        #expect(missing.termination == .exited(1) && missing.errors == "shapes: no document no-such-id\n" && missing.output.isEmpty,
                "\(missing)")
        let badWhere = try await BuiltProgram.run("shapes", ["list", "--where", "radius >", "--store", store.url.path])
        #expect(badWhere.termination == .exited(64) && badWhere.errors.contains("no value after >"), "\(badWhere)")
        let added = try await BuiltProgram.run("shapes", ["add", "circle", "2", "--store", store.url.path])
        #expect(added.termination == .exited(0) && added.errors.isEmpty && added.line.count == 36, "\(added)")
    }
}
