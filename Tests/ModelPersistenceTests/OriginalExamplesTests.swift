import Foundation
import ModelPersistence
import Testing
import TestSupport

// DocumentData's article (../shared/originals/000_888d5f5ed51d0659.txt), "Examples": its model exactly
// as published, a plain (non-final) class with `@PersistedIgnore`. Nested in an enum only because this
// test target already has a top-level `SomeModel` (HandWrittenModel.swift); the model-probe program
// declares the same class at top level.
//
// The article keeps the file in `~/Library/Application Support`; on Linux the same place is the
// XDG data folder, `~/.local/share/<program>` (see Docs/ModelPersistence.md). Tests bind
// `PersistenceLocation.$folder` to a folder of their own instead, so parallel tests never share a file.
enum DocumentData {
    @PersistedModel
    class SomeModel {
        var string: String
        var bool: Bool
        @PersistedIgnore
        var bool2: Bool

        init(string: String, bool: Bool, bool2: Bool) {
            self.string = string
            self.bool = bool
            self.bool2 = bool2
        }
    }
}

/// What `PropertyListEncoder` writes for the persisted fields, in declaration order.
private struct SomeModelFile: Codable, Equatable {
    var string: String
    var bool: Bool
}

@Suite struct OriginalExamplesTests {
    /// The article's use: create the model, set values; the file is `SomeModel.storage.plist`, a
    /// binary property list with `string` and `bool` but not the ignored `bool2`.
    @Test func theExampleCompilesAndWritesTheFileTheArticleShows() throws {
        let temp = try TemporaryFolder(prefix: "documentdata")
        try PersistenceLocation.$folder.withValue(temp.url) {
            let model = DocumentData.SomeModel(string: "hello", bool: false, bool2: true)
            model.string = "hello"
            model.bool = false
            model.bool2 = true
            let url = DocumentData.SomeModel.url
            #expect(url.lastPathComponent == "SomeModel.storage.plist")
            #expect(url.deletingLastPathComponent().standardizedFileURL == temp.url.standardizedFileURL)
            let bytes = try Data(contentsOf: url)
            #expect(bytes.starts(with: Array("bplist00".utf8)))
            #expect(bytes == (try PropertyListEncoder().encode(SomeModelFile(string: "hello", bool: false))))
            let keys = try PropertyListSerialization.propertyList(from: bytes, format: nil) as? [String: Any]
            #expect(keys.map { Set($0.keys) } == ["string", "bool"], "bool2 is @PersistedIgnore")

            // A new instance reads the file back; the ignored property keeps its own value.
            let again = DocumentData.SomeModel(string: "", bool: true, bool2: false)
            #expect(again.string == "hello" && again.bool == false && again.bool2 == false)
        }
    }

    /// The same from `async` code, including the async `update`.
    @Test func theExampleWorksFromAsyncCode() async throws {
        let temp = try TemporaryFolder(prefix: "documentdata-async")
        try await PersistenceLocation.$folder.withValue(temp.url) {
            let model = DocumentData.SomeModel(string: "hello", bool: false, bool2: true)
            model.string = "async"
            try await model.update { $0.bool = true }
            let again = DocumentData.SomeModel(string: "", bool: false, bool2: false)
            #expect(again.string == "async" && again.bool)
        }
    }

    @Test func valuesSurviveANewProcessBothWays() async throws {
        let temp = try TemporaryFolder(prefix: "documentdata-process")
        PersistenceLocation.$folder.withValue(temp.url) {
            let model = DocumentData.SomeModel(string: "", bool: false, bool2: false)
            model.string = "from the test"
            model.bool = true
        }
        let probe = try ChildProcess.builtProgram("model-probe")
        let show = try ChildProcess.start(probe, ["some-model-show", temp.url.path])
        #expect(try await show.waitForExit(deadline: .now + .seconds(60)) == .exited(0), "\(show.error("show"))")
        #expect(show.outputLines == ["string from the test", "bool true"])

        let set = try ChildProcess.start(probe, ["some-model-set", temp.url.path, "from the probe", "false"])
        #expect(try await set.waitForExit(deadline: .now + .seconds(60)) == .exited(0), "\(set.error("set"))")
        PersistenceLocation.$folder.withValue(temp.url) {
            let model = DocumentData.SomeModel(string: "", bool: true, bool2: false)
            #expect(model.string == "from the probe" && model.bool == false)
        }
    }

    /// Setting a value a property already has writes nothing.
    @Test func equalValuesAreNotRewritten() throws {
        let temp = try TemporaryFolder(prefix: "documentdata-equal")
        try PersistenceLocation.$folder.withValue(temp.url) {
            let model = DocumentData.SomeModel(string: "hello", bool: false, bool2: true)
            model.string = "hello"
            model.bool = false
            let url = DocumentData.SomeModel.url
            let before = try FileManager.default.attributesOfItem(atPath: url.path)
            let bytes = try Data(contentsOf: url)
            for _ in 0..<20 {
                model.string = "hello"
                model.bool = false
                model.bool2.toggle()                          // ignored: never written
            }
            let after = try FileManager.default.attributesOfItem(atPath: url.path)
            #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int, "the file was replaced")
            #expect(try Data(contentsOf: url) == bytes)
        }
    }
}
