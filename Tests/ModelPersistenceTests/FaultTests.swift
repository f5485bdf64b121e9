import Foundation
import PlistCodec
import Testing
import TestSupport
@testable import ModelPersistence

@Suite("ModelPersistence: errors never crash")
struct FaultTests {
    /// The `.corrupt-` files next to `url`.
    func corruptCopies(of url: URL, in temp: TemporaryFolder) throws -> [URL] {
        try temp.entries().filter { $0.hasPrefix(url.lastPathComponent + ".corrupt-") }.map { temp.file($0) }
    }

    @Test("a corrupt file on first use is moved aside, reported, and replaced by the current values")
    func corruptOnFirstUse() throws {
        try withTemporaryLocation { temp in
            let garbage = Data("this is not a property list".utf8)
            try garbage.write(to: SomeModel.url)
            let model = SomeModel(string: "init", bool: true, bool2: false)
            #expect(model.string == "init")
            let copies = try corruptCopies(of: SomeModel.url, in: temp)
            #expect(copies.count == 1)
            #expect(try copies.first.map { try Data(contentsOf: $0) } == garbage)
            guard case .corruptFile(_, let movedTo)? = model.persistenceError?.cause else {
                Issue.record("expected a corrupt-file error, got \(String(describing: model.persistenceError))")
                return
            }
            #expect(movedTo?.standardizedFileURL == copies.first?.standardizedFileURL)
            #expect(model.persistenceError?.url == SomeModel.url)
            #expect(try storedDictionary(SomeModel.url)["string"] == .string("init"))
        }
    }

    @Test("a file corrupted later is moved aside with its bytes, the model keeps its values, the next set writes a fresh file")
    func corruptOnReload() async throws {
        try await withTemporaryLocation { temp in
            let errors = PersistenceErrors.stream()
            let model = SomeModel(string: "good", bool: true, bool2: false)
            let future: PlistDictionary = ["string": .string("good"), "bool": .bool(true), "future": .int(1)]
            try PlistValue.dictionary(future).serialized(as: .binary).write(to: SomeModel.url)
            #expect(await waitUntil(timeout: .seconds(5)) { model.persistenceError == nil && (try? storedDictionary(SomeModel.url)) != nil })
            _ = model.string   // learns the unknown key
            let truncated = try PlistValue.dictionary(["string": .string("bad")]).serialized(as: .binary).prefix(20)
            try Data(truncated).write(to: SomeModel.url)
            #expect(await waitUntil(timeout: .seconds(5)) { _ = model.string; return model.persistenceError != nil })
            #expect(model.string == "good")
            #expect(model.bool == true)
            let copies = try corruptCopies(of: SomeModel.url, in: temp)
            #expect(copies.count == 1)
            #expect(try copies.first.map { try Data(contentsOf: $0) } == Data(truncated))
            #expect(!SomeModel.isPersisted)   // moved, not rewritten in place

            let reported = await firstError(in: errors, about: SomeModel.url)
            guard case .corruptFile(let plistError, let movedTo)? = reported?.cause else {
                Issue.record("expected a corrupt-file error on the stream, got \(String(describing: reported))")
                return
            }
            #expect(reported?.operation == .load)
            #expect(movedTo != nil)
            #expect(!plistError.message.isEmpty)

            model.bool = false
            let stored = try storedDictionary(SomeModel.url)
            #expect(stored.keys == ["string", "bool", "future"])
            #expect(stored["string"] == .string("good"))
            #expect(stored["bool"] == .bool(false))
        }
    }

    @Test("a failed write is reported, the value stays in memory, and flush writes it once the fault is gone")
    func writeFailure() async throws {
        try await withTemporaryLocation { temp in
            let counter = Counter()
            counter.count = 1
            let errors = PersistenceErrors.stream()
            // A folder where the file should be: reading and renaming onto it both fail.
            try FileManager.default.removeItem(at: Counter.url)
            try FileManager.default.createDirectory(at: Counter.url, withIntermediateDirectories: false)
            try "x".write(to: Counter.url.appendingPathComponent("occupied"), atomically: false, encoding: .utf8)
            counter.count = 2
            #expect(counter.count == 2)
            // `persistenceError` is the last error: the watcher may also have failed to reload the
            // file (a `.load` error) by now, so the save's error is looked for among those reported.
            #expect(counter.persistenceError != nil)
            let error = try #require(await firstError(in: errors, about: Counter.url, operation: .save, timeout: .seconds(60)))
            guard case .file = error.cause else {
                Issue.record("expected a file error, got \(error)")
                return
            }
            #expect(throws: PersistenceError.self) { try counter.flush() }
            try FileManager.default.removeItem(at: Counter.url)
            try counter.flush()
            #expect(try storedDictionary(Counter.url)["count"] == .int(2))
            #expect(try temp.entries().filter { $0.contains(".tmp-") }.isEmpty)
        }
    }

    @Test("the handler and streams receive errors; with neither, nothing crashes")
    func errorChannel() async throws {
        let stream = PersistenceErrors.stream()
        let error = PersistenceError(documentName: "Doc", url: URL(fileURLWithPath: "/nonexistent/Doc.storage.plist"),
                                     operation: .save, cause: .file(.diskFull(URL(fileURLWithPath: "/nonexistent"))))
        PersistenceErrors.report(error)
        #expect(await firstError(in: stream, about: error.url) == error)
        #expect(error.description.contains("no space left"))
    }

    /// The first error about `url` (of `operation`, when given) on `stream`, or `nil` after `timeout`.
    func firstError(in stream: AsyncStream<PersistenceError>, about url: URL, operation: PersistenceError.Operation? = nil,
                    timeout: Duration = .seconds(5)) async -> PersistenceError? {
        await withTaskGroup(of: PersistenceError?.self) { group in
            group.addTask {
                for await error in stream where error.url == url && (operation == nil || error.operation == operation) {
                    return error
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
