import FileStorageKit
import Foundation
import PlistCodec
import Synchronization
import Testing
import TestSupport
@testable import ModelPersistence

// DocumentData's API beyond its article (issue 31): `@ModelCodingKey`, `@Migration` and `Migratable`,
// `default`, `save()`, `Codable` models, observable `@PersistedIgnored` properties, and its folder.
// The library's own examples, compiled as published, are in Tests/DocumentDataExamples.

/// Keys of its own in the file, DocumentData's way; one optional.
@PersistedModel
final class KeyedProfile {
    var username: String = ""
    var password: Data = Data()
    var nickname: String?

    @ModelCodingKey
    enum CustomizeCodingKey: String, CodingKey {
        case username = "FILUsername"
        case password = "USRPassword"
        case nickname
    }
}

/// `@PersistedModel` writes `init(from:)`; declaring the conformance is the user's one line.
extension KeyedProfile: Decodable {}

/// Version 2 of a model whose version 1 wrote the keys "n" and "a".
@PersistedModel
final class MigratingProfile {
    var name: String = ""
    var age: Int = 0
    var city: String = "none"

    @ModelCodingKey
    enum CodingKeys: String, CodingKey {
        case name = "NAME"
        case age = "AGE"
        case city = "CITY"
    }

    @Migration
    enum OldKeys: String, CodingKey {
        case name = "n"
        case age = "a"
    }
}

/// Properties without initial values: `default` needs them in the file.
@PersistedModel
final class RequiredModel {
    var title: String
    var count: Int
    @PersistedIgnored var scratch: String

    init(title: String, count: Int) {
        self.title = title
        self.count = count
        self.scratch = "from init"
    }
}

/// DocumentData's `ignoredButObservedToggle`.
@PersistedModel
final class ToggleModel {
    var stored: Int = 0
    @PersistedIgnored var ignoredButObservedToggle: Bool = false
}

@Suite("ModelPersistence: DocumentData's API")
struct DocumentDataAPITests {
    /// The file's bytes.
    func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    /// The file's inode: a durable write replaces the file, so an unchanged inode means no write.
    func inode(_ url: URL) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require((attributes[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    /// Writes `dictionary` as the file of `Model` in the current location, as another program would.
    func writeFile<Model: PersistedModel>(_ dictionary: PlistDictionary, for model: Model.Type) throws {
        let url = Model.url
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try PlistValue.dictionary(dictionary).serialized(as: .binary).write(to: url)
    }

    // MARK: @ModelCodingKey

    @Test("@ModelCodingKey: the enum's raw values are the file's keys, written and read")
    func codingKeysAreTheFilesKeys() throws {
        try withTemporaryLocation { _ in
            let profile = KeyedProfile()
            profile.username = "ada"
            profile.password = Data([1, 2, 3])
            var stored = try storedDictionary(KeyedProfile.url)
            #expect(stored.keys == ["FILUsername", "USRPassword"], "\(stored)")   // the nil optional is left out
            #expect(stored["FILUsername"] == .string("ada"))
            profile.nickname = "countess"
            stored = try storedDictionary(KeyedProfile.url)
            #expect(stored.keys == ["FILUsername", "USRPassword", "nickname"], "\(stored)")

            // A file another program wrote with those keys is read under them.
            struct Other: Codable {
                var username: String
                var password: Data
                enum CodingKeys: String, CodingKey {
                    case username = "FILUsername"
                    case password = "USRPassword"
                }
            }
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            try encoder.encode(Other(username: "grace", password: Data([9]))).write(to: KeyedProfile.url)
            let reader = KeyedProfile()
            #expect(reader.username == "grace" && reader.password == Data([9]) && reader.nickname == nil)
            // And the other program reads what the model writes.
            reader.username = "hopper"
            let back = try PropertyListDecoder().decode(Other.self, from: Data(contentsOf: KeyedProfile.url))
            #expect(back.username == "hopper" && back.password == Data([9]))
        }
    }

    @Test("PropertyListEncoder().encode(model) is the file's bytes; PropertyListDecoder reads them back")
    func codableIsTheFile() throws {
        try withTemporaryLocation { _ in
            let profile = KeyedProfile()
            profile.withBatch { p in
                p.username = "ada"
                p.password = Data(repeating: 7, count: 40)
                p.nickname = "countess"
            }
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            let encoded = try encoder.encode(profile)
            #expect(encoded == (try bytes(KeyedProfile.url)))

            let decoded = try PropertyListDecoder().decode(KeyedProfile.self, from: encoded)
            #expect(decoded.username == "ada" && decoded.nickname == "countess" && decoded.password.count == 40)
            // A decoded instance is an instance of the file like any other.
            decoded.username = "grace"
            // Another instance's write reaches this one through the change monitor (inotify), not at once.
            #expect(waitUntil(timeout: .seconds(30)) { profile.username == "grace" })
        }
    }

    @Test("a non-final model is Encodable too; its subclass encodes the inherited properties")
    func nonFinalModelEncodes() throws {
        try withTemporaryLocation { _ in
            let child = AnnotatedModel(string: "s", bool: true, bool2: false)
            let encoded = try PropertyListEncoder().encode(child)
            #expect(encoded == (try bytes(SomeModel.url)))
        }
    }

    // MARK: default

    @Test("default: the file's values, the same file as any instance, both ways")
    func defaultIsTheFile() throws {
        try withTemporaryLocation { _ in
            #expect(!KeyedProfile.isPersisted)
            let first = KeyedProfile.default          // no file: initial values, and the file is written
            #expect(first.username == "" && first.nickname == nil)
            #expect(KeyedProfile.isPersisted)

            let instance = KeyedProfile()
            instance.username = "ada"
            #expect(KeyedProfile.default.username == "ada")
            // An earlier default sees the write too, once the change monitor has it.
            #expect(waitUntil(timeout: .seconds(30)) { first.username == "ada" })

            let shared = KeyedProfile.default
            shared.nickname = "countess"
            #expect(waitUntil(timeout: .seconds(30)) { instance.nickname == "countess" })
            #expect(KeyedProfile.default !== shared)   // a new instance each time, as DocumentData's
        }
    }

    @Test("default without the file's value for a property with no initial value: a typed error naming it")
    func defaultNeedsRequiredValues() throws {
        try withTemporaryLocation { _ in
            #expect(throws: PersistenceError.self) { try RequiredModel.loadDefault() }
            do {
                _ = try RequiredModel.loadDefault()
            } catch let error as PersistenceError {
                #expect(error.cause == .undecodableValue(key: "title", message: "the file has no value for it and the property has no initial value"))
                #expect(error.operation == .load)
            }
            let model = RequiredModel(title: "t", count: 3)
            _ = model.title                              // the first use writes the file
            let loaded = try RequiredModel.loadDefault()
            #expect(loaded.title == "t" && loaded.count == 3)
            #expect(loaded.scratch.isEmpty)              // ignored, not in the file: starts empty, as in DocumentData

            // A value of the wrong type for a required property is as good as missing.
            try writeFile(["title": .string("t"), "count": .string("three")], for: RequiredModel.self)
            do {
                _ = try RequiredModel.loadDefault()
                Issue.record("a count of the wrong type was accepted")
            } catch let error as PersistenceError {
                #expect(error.cause == .undecodableValue(key: "count", message: "the file has no value for it and the property has no initial value"))
            }
        }
    }

    @Test("default with a value of the wrong type: the property keeps its initial value, and it is reported")
    func defaultSkipsAnUndecodableValue() throws {
        try withTemporaryLocation { _ in
            try writeFile(["FILUsername": .integer(PlistInteger(5)), "USRPassword": .data(Data([1]))], for: KeyedProfile.self)
            let profile = try KeyedProfile.loadDefault()
            #expect(profile.username == "")
            #expect(profile.password == Data([1]))
            guard case .undecodableValue(let key, _)? = profile.persistenceError?.cause else {
                Issue.record("not reported: \(String(describing: profile.persistenceError))")
                return
            }
            #expect(key == "FILUsername")
        }
    }

    @Test("default over a corrupt file: moved aside and reported, then the initial values")
    func defaultOverACorruptFile() throws {
        try withTemporaryLocation { temp in
            try FileManager.default.createDirectory(at: temp.url, withIntermediateDirectories: true)
            try Data("not a plist {".utf8).write(to: KeyedProfile.url)
            let profile = try KeyedProfile.loadDefault()
            #expect(profile.username == "")
            let names = try FileManager.default.contentsOfDirectory(atPath: temp.url.path)
            #expect(names.contains { $0.hasPrefix("KeyedProfile.storage.plist.corrupt-") }, "\(names)")
        }
    }

    // MARK: @Migration

    @Test("@Migration: old keys are read; migrate() rewrites them as the current ones, once")
    func migrationRewritesOldKeys() throws {
        try withTemporaryLocation { _ in
            #expect(!MigratingProfile.shouldMigrate)    // no file
            MigratingProfile.migrate()
            #expect(!MigratingProfile.isPersisted)      // nothing to migrate: no file made

            try writeFile(["n": .string("Ada"), "a": .integer(PlistInteger(36)), "CITY": .string("London"), "extra": .bool(true)],
                          for: MigratingProfile.self)
            #expect(MigratingProfile.shouldMigrate)
            let reader = MigratingProfile()
            #expect(reader.name == "Ada" && reader.age == 36 && reader.city == "London")   // read before migrating

            MigratingProfile.migrate()
            let stored = try storedDictionary(MigratingProfile.url)
            #expect(stored.keys == ["NAME", "AGE", "CITY", "extra"], "\(stored)")   // unknown keys kept, last
            #expect(stored["NAME"] == .string("Ada") && stored["AGE"] == .integer(PlistInteger(36)))
            #expect(!MigratingProfile.shouldMigrate)

            let before = try inode(MigratingProfile.url)
            #expect(try MigratingProfile.migrateFile() == false)
            #expect(try inode(MigratingProfile.url) == before)   // nothing written the second time
            #expect(reader.name == "Ada" && reader.age == 36)
        }
    }

    @Test("@Migration: migrations and sets at the same moment lose nothing (20 rounds, 3 migrators)")
    func concurrentMigrationsAndSets() throws {
        for round in 0..<20 {
            try withTemporaryLocation { temp in
                try writeFile(["n": .string("Ada"), "a": .integer(PlistInteger(36))], for: MigratingProfile.self)
                let setter = MigratingProfile()
                _ = setter.name
                let folder = temp.url
                let start = Atomic<Int>(0)
                let rewrote = Atomic<Int>(0)
                let failures = Mutex<[String]>([])
                let shared = Shared(value: setter)
                var threads: [Thread] = []
                for index in 0..<4 {
                    let thread = Thread {
                        start.add(1, ordering: .relaxed)
                        while start.load(ordering: .relaxed) < 4 {}
                        PersistenceLocation.$folder.withValue(folder) {
                            if index == 0 {
                                shared.value.age = 50
                            } else {
                                do {
                                    if try MigratingProfile.migrateFile() { rewrote.add(1, ordering: .relaxed) }
                                } catch {
                                    failures.withLock { $0.append("\(error)") }
                                }
                            }
                        }
                    }
                    threads.append(thread)
                    thread.start()
                }
                let deadline = ContinuousClock.now + .seconds(60)
                while threads.contains(where: { !$0.isFinished }) && ContinuousClock.now < deadline {
                    Thread.sleep(forTimeInterval: 0.001)
                }
                let finished = threads.allSatisfy { $0.isFinished }
                #expect(finished, "round \(round): threads still running")
                #expect(failures.withLock { $0 }.isEmpty, "round \(round): \(failures.withLock { $0 })")
                #expect(rewrote.load(ordering: .relaxed) <= 1, "round \(round)")
                let stored = try storedDictionary(MigratingProfile.url)
                #expect(stored["NAME"] == .string("Ada"), "round \(round): \(stored)")
                #expect(stored["AGE"] == .integer(PlistInteger(50)), "round \(round): \(stored)")
                #expect(stored["n"] == nil && stored["a"] == nil, "round \(round): \(stored)")
            }
        }
    }

    @Test("a set of a migrated property writes its current key and removes the old one")
    func setMovesTheKey() throws {
        try withTemporaryLocation { _ in
            try writeFile(["n": .string("Ada"), "a": .integer(PlistInteger(36))], for: MigratingProfile.self)
            let profile = MigratingProfile()
            profile.age = 37
            let stored = try storedDictionary(MigratingProfile.url)
            #expect(stored["AGE"] == .integer(PlistInteger(37)) && stored["a"] == nil, "\(stored)")
            #expect(stored["n"] == .string("Ada"))       // not set: still under its old key until migrate()
            #expect(MigratingProfile.shouldMigrate)
        }
    }

    // MARK: save()

    @Test("save() writes every property now; inside a batch, at its end")
    func saveWritesEverything() throws {
        try withTemporaryLocation { _ in
            let profile = KeyedProfile()
            profile.username = "ada"
            try KeyedProfile.delete()
            #expect(!KeyedProfile.isPersisted)
            profile.save()
            #expect(try storedDictionary(KeyedProfile.url)["FILUsername"] == .string("ada"))

            try KeyedProfile.delete()
            let writes = writeCount(profile)
            profile.withBatch { p in
                p.save()
                #expect(!KeyedProfile.isPersisted)       // not yet
                p.nickname = "countess"
            }
            #expect(writeCount(profile) == writes + 1)
            let stored = try storedDictionary(KeyedProfile.url)
            #expect(stored["FILUsername"] == .string("ada") && stored["nickname"] == .string("countess"))
            #expect(profile.persistenceError == nil)
        }
    }

    // MARK: @PersistedIgnored

    @Test("@PersistedIgnored stays observable (DocumentData's ignoredButObservedToggle) and out of the file")
    func ignoredIsObserved() throws {
        try withTemporaryLocation { _ in
            let model = ToggleModel()
            let fired = Flag()
            withObservationTracking {
                _ = model.ignoredButObservedToggle
            } onChange: {
                fired.raise()
            }
            model.ignoredButObservedToggle = true
            #expect(fired.count == 1)
            model.stored = 1
            let keys = try storedDictionary(ToggleModel.url).keys
            #expect(keys == ["stored"])
            #expect(ToggleModel().ignoredButObservedToggle == false)   // memory only
        }
    }

    // MARK: DocumentData's folder

    #if os(Linux)
    @Test("processFolder = documentDataFolder: the file is in ~/Library/Application Support, and its data is read")
    func documentDataFolder() async throws {
        let probe = try ChildProcess.builtProgram("model-probe")
        let home = try TemporaryFolder(prefix: "mp-ddhome")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.url.path
        environment[AppDirectories.rootEnvironmentVariable] = nil
        let folder = home.url.appendingPathComponent("Library/Application Support", isDirectory: true)
        let file = folder.appendingPathComponent("SomeModel.storage.plist")

        // A file DocumentData wrote (its encoder, its folder) is what the model reads.
        struct Written: Codable {
            var string: String
            var bool: Bool
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        try encoder.encode(Written(string: "from DocumentData", bool: true)).write(to: file)
        let show = try ChildProcess.start(probe, ["some-model-dd-show", "-"], environment: environment)
        try #require(try await show.waitForExit(deadline: .now + .seconds(120)) == .exited(0), "\(show.error("failed"))")
        #expect(show.outputLines.prefix(3) == ["url \(file.path)", "string from DocumentData", "bool true"])

        let set = try ChildProcess.start(probe, ["some-model-dd-set", "-", "moved", "false"], environment: environment)
        try #require(try await set.waitForExit(deadline: .now + .seconds(120)) == .exited(0), "\(set.error("failed"))")
        let back = try PropertyListDecoder().decode(Written.self, from: Data(contentsOf: file))
        #expect(back.string == "moved" && back.bool == false)
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent(".local/share/model-probe").path))
    }
    #endif
}
