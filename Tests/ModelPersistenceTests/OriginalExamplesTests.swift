import FileStorageKit
import Foundation
import PlistCodec
import Testing
import TestSupport
@testable import ModelPersistence

// DocumentData's "How Can Persistence File Work?" (../shared/originals/000_888d5f5ed51d0659.txt, the
// original ModelPersistence rebuilds): its example, copied unchanged. It is what a user pastes, so it
// must compile as written (a class that is not `final`, `@PersistedIgnore` on a line of its own) and
// behave as the text says. The other suites of this target use it too; model-probe declares it as well
// (Tests/ModelProbe/DocumentDataModel.swift), so a second process shares its file.

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

/// The example's last line, as an expression (a statement of its own would be an unused result).
func originalExample() -> SomeModel {
    SomeModel(string: "hello", bool: false, bool2: true)
}

/// The property-list structure the text shows for the example, copied unchanged (its first line names
/// the file).
let originalListing = """
<!--SomeModel.storage.plist-->
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>string</key>
    <string>hello</string>
    <key>bool</key>
    <false/>
</dict>
</plist>

"""

@Suite("ModelPersistence: DocumentData's example")
struct OriginalExamplesTests {
    /// The file name the listing's comment gives, and the dictionary the listing holds.
    func listing() throws -> (fileName: String, dictionary: PlistDictionary) {
        var lines = originalListing.split(separator: "\n", omittingEmptySubsequences: false)
        let comment = String(lines.removeFirst())
        let fileName = String(comment.dropFirst("<!--".count).dropLast("-->".count))
        guard case .dictionary(let dictionary) = try PlistValue(parsing: Data(lines.joined(separator: "\n").utf8)) else {
            throw PlistError(.malformed, "the listing is not a dictionary")
        }
        return (fileName, dictionary)
    }

    /// The file's inode: a durable write replaces the file, so an unchanged inode means no write.
    func inode(_ url: URL) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require((attributes[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    @Test("the example compiles as written, and its file is the listing, in the model's folder")
    func fileIsTheListing() throws {
        try withTemporaryLocation { temp in
            let expected = try listing()
            #expect(expected.fileName == "SomeModel.storage.plist")
            let model = originalExample()
            #expect(!SomeModel.isPersisted)   // creating the instance touches nothing
            #expect(model.string == "hello")  // the first use writes the file
            let url = temp.url.appendingPathComponent(expected.fileName).standardizedFileURL
            #expect(SomeModel.url == url)
            #expect(FileManager.default.fileExists(atPath: url.path))
            let stored = try storedDictionary(url)
            #expect(stored.hasSameContents(as: expected.dictionary), "\(stored)")
            // Binary keeps declaration order, which is the listing's order too.
            #expect(Array(stored.keys) == Array(expected.dictionary.keys))
            #expect(stored["bool2"] == nil)   // marked @PersistedIgnore
            // `save()` in the text encodes the model with `PropertyListEncoder`, `outputFormat = .binary`:
            // the same bytes as for a Codable struct with the persisted fields.
            let bytes = try Data(contentsOf: url)
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            #expect(bytes == (try encoder.encode(SomeModelFields(string: "hello", bool: false))))
            #expect(bytes.starts(with: Data("bplist00".utf8)))
        }
    }

    @Test("from synchronous code: values survive a new instance; the ignored one stays in memory")
    func synchronousRoundTrip() throws {
        try withTemporaryLocation { _ in
            let model = originalExample()
            model.string = "changed"
            model.bool = true
            model.bool2 = false
            let again = SomeModel(string: "other", bool: false, bool2: true)
            #expect(again.string == "changed")
            #expect(again.bool == true)
            #expect(again.bool2 == true)   // not persisted: what init assigned
            let stored = try storedDictionary(SomeModel.url)
            #expect(stored.hasSameContents(as: ["string": .string("changed"), "bool": .bool(true)]), "\(stored)")
        }
    }

    @Test("from async code: values survive a new instance, set in other tasks")
    func asynchronousRoundTrip() async throws {
        try await withTemporaryLocation { _ in
            let folder = try #require(PersistenceLocation.folder)
            // Child tasks inherit the task-local folder.
            let first = await Task { () -> String in
                let model = originalExample()
                model.string = "from a task"
                return model.string
            }.value
            #expect(first == "from a task")
            let model = originalExample()
            #expect(model.string == "from a task")
            try await model.update { $0.bool = true }
            let seen = await Task.detached {
                // A detached task does not inherit it: bind it again.
                PersistenceLocation.$folder.withValue(folder) { () -> [String] in
                    let other = originalExample()
                    return [other.string, String(other.bool), String(other.bool2)]
                }
            }.value
            #expect(seen == ["from a task", "true", "true"])
        }
    }

    @Test("setting a value equal to the file's rewrites nothing")
    func equalValuesAreNotRewritten() throws {
        try withTemporaryLocation { _ in
            let model = originalExample()
            _ = model.string
            let url = SomeModel.url
            let bytes = try Data(contentsOf: url)
            let before = try inode(url)
            let writes = writeCount(model)
            model.string = "hello"
            model.bool = false
            model.bool2 = false   // not persisted: no write either
            #expect(writeCount(model) == writes)
            #expect(try inode(url) == before)
            #expect(try Data(contentsOf: url) == bytes)
            model.string = "other"   // a different value is written (so the checks above can fail)
            #expect(writeCount(model) == writes + 1)
            #expect(try inode(url) != before)
        }
    }

    @Test("a new process reads what this one set, and this one reads what it set")
    func valuesSurviveANewProcess() async throws {
        let probe = try ChildProcess.builtProgram("model-probe")
        let temp = try TemporaryFolder(prefix: "mp-test")
        let deadline = ContinuousClock.now + .seconds(120)
        let model = PersistenceLocation.$folder.withValue(temp.url) { () -> SomeModel in
            let model = originalExample()
            model.string = "from the test"   // the first use, inside the binding, resolves the file
            return model
        }
        #expect(model._$persistence.url == SomeModel.url(in: temp.url))

        let show = try ChildProcess.start(probe, ["some-model-show", temp.url.path])
        try #require(try await show.waitForExit(deadline: deadline) == .exited(0), "\(show.error("failed"))")
        #expect(show.outputLines == ["url \(SomeModel.url(in: temp.url).path)", "string from the test",
                                     "bool false", "bool2 true"])

        let set = try ChildProcess.start(probe, ["some-model-set", temp.url.path, "from the probe", "true"])
        try #require(try await set.waitForExit(deadline: deadline) == .exited(0), "\(set.error("failed"))")
        // The running instance reloads the changed file once its change monitor has seen the rename.
        let end = ContinuousClock.now + .seconds(120)
        while !(model.string == "from the probe" && model.bool) && ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(model.string == "from the probe")
        #expect(model.bool == true)
        let fresh = PersistenceLocation.$folder.withValue(temp.url) { () -> [String] in
            let fresh = originalExample()
            return [fresh.string, String(fresh.bool), String(fresh.bool2)]
        }
        #expect(fresh == ["from the probe", "true", "true"])
    }

    #if os(Linux)
    /// The text puts the file in `~/Library/Application Support`; on Linux the same folder is the XDG data
    /// folder, with the program's name (ModelPersistence.docc's `WhereTheFileIs.md`).
    @Test("by default the file is in application support: ~/.local/share/<program> on Linux")
    func defaultFolderOnLinux() async throws {
        let probe = try ChildProcess.builtProgram("model-probe")
        let home = try TemporaryFolder(prefix: "mp-home")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.url.path
        environment[AppDirectories.rootEnvironmentVariable] = nil
        environment["XDG_DATA_HOME"] = nil
        let child = try ChildProcess.start(probe, ["some-model-show", "-"], environment: environment)
        try #require(try await child.waitForExit(deadline: .now + .seconds(120)) == .exited(0), "\(child.error("failed"))")
        let expected = home.url.appendingPathComponent(".local/share/model-probe/SomeModel.storage.plist")
        #expect(child.outputLines.first == "url \(expected.path)")
        #expect(try storedDictionary(expected).hasSameContents(as: listing().dictionary))

        let xdg = try TemporaryFolder(prefix: "mp-xdg")
        environment["XDG_DATA_HOME"] = xdg.url.path
        let other = try ChildProcess.start(probe, ["some-model-show", "-"], environment: environment)
        try #require(try await other.waitForExit(deadline: .now + .seconds(120)) == .exited(0), "\(other.error("failed"))")
        #expect(FileManager.default.fileExists(atPath: xdg.url.appendingPathComponent("model-probe/SomeModel.storage.plist").path))
    }
    #endif
}

extension PersistedModel {
    /// The model's file in `folder`.
    static func url(in folder: URL) -> URL {
        PersistenceLocation.$folder.withValue(folder) { url }
    }
}
