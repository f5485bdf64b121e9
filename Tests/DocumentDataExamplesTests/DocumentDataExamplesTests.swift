import Foundation
import ModelPersistence
import PlistCodec
import Testing
import TestSupport

/// DocumentData's documented examples (DocumentDataExamples.swift) doing what its documentation and its
/// integration tests say, each in a temporary folder of its own.
@Suite("DocumentData's documented examples")
struct DocumentDataExamplesTests {
    func inTemporaryFolder<R>(_ body: (URL) throws -> R) throws -> R {
        let temp = try TemporaryFolder(prefix: "dd-examples")
        return try PersistenceLocation.$folder.withValue(temp.url) { try body(temp.url) }
    }

    /// Writes `value` to `url` as DocumentData does: `PropertyListEncoder`, binary.
    func writeAsDocumentData<T: Encodable>(_ value: T, to url: URL) throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(value).write(to: url)
    }

    @Test("README: UserData is stored in UserData.storage.plist, and `default` reads a file DocumentData wrote")
    func readmeUserData() throws {
        try inTemporaryFolder { folder in
            #expect(UserData.url.lastPathComponent == "UserData.storage.plist")
            #expect(throws: PersistenceError.self) { try UserData.loadDefault() }   // no file, no initial values
            struct Written: Codable {
                var username: String
                var password: Data
                var universalID: UUID
            }
            let id = UUID()
            try writeAsDocumentData(Written(username: "ada", password: Data([1, 2]), universalID: id), to: UserData.url)
            let user = UserData.default
            #expect(user.username == "ada" && user.password == Data([1, 2]) && user.universalID == id)
            user.username = "grace"
            let back = try PropertyListDecoder().decode(Written.self, from: Data(contentsOf: UserData.url))
            #expect(back.username == "grace" && back.universalID == id)
        }
    }

    @Test("@PersistedModel's documentation: `UserInformation.default` after the data was stored once")
    func documentedDefaultInformation() throws {
        try inTemporaryFolder { _ in
            let stored = UserInformation(username: "ada", password: Data([7]))
            _ = stored.username          // the first use stores it
            let information = documentedDefault()
            #expect(information.username == "ada" && information.password == Data([7]))
            information.password = Data([8])
            // Another instance's write reaches this one through the change monitor, not at once.
            #expect(waitUntil(timeout: .seconds(30)) { stored.password == Data([8]) })
        }
    }

    @Test("@StorageName's documentation: UserScheme is stored in Default.storage.plist")
    func storageName() throws {
        try inTemporaryFolder { folder in
            #expect(UserScheme.url == folder.appendingPathComponent("Default.storage.plist").standardizedFileURL)
        }
    }

    @Test("@ModelCodingKey's documentation: UserProfile's file uses FILUsername and USRPassword")
    func modelCodingKey() throws {
        try inTemporaryFolder { _ in
            struct Written: Codable {
                var username: String
                var password: Data
                enum CodingKeys: String, CodingKey {
                    case username = "FILUsername"
                    case password = "USRPassword"
                }
            }
            try writeAsDocumentData(Written(username: "ada", password: Data([3])), to: UserProfile.url)
            let profile = UserProfile.default
            #expect(profile.username == "ada" && profile.password == Data([3]))
            profile.username = "grace"
            let stored = try storedDictionary(UserProfile.url)
            #expect(stored.keys == ["FILUsername", "USRPassword"], "\(stored)")
            #expect(stored["FILUsername"] == .string("grace"))
        }
    }

    @Test("the article's SomeModel: bool2 is not persisted")
    func articleExample() throws {
        try inTemporaryFolder { _ in
            let model = SomeModel(string: "hello", bool: false, bool2: true)
            #expect(model.string == "hello")
            let keys = try storedDictionary(SomeModel.url).keys
            #expect(keys == ["string", "bool"])
        }
    }

    @Test("StoringData: ignoredButObservedToggle is observed and not stored")
    func ignoredButObserved() throws {
        try inTemporaryFolder { _ in
            let data = StoringData(isFirstToggleOpen: true, textFieldText: "text", ignoredButObservedToggle: false)
            #expect(data.isFirstToggleOpen)
            let changed = ChangeCounter()
            withObservationTracking { _ = data.ignoredButObservedToggle } onChange: { changed.count += 1 }
            data.ignoredButObservedToggle = true
            #expect(changed.count == 1)
            #expect(StoringData.url.lastPathComponent == "Default.storage.plist")
            let keys = try storedDictionary(StoringData.url).keys
            #expect(keys == ["isFirstToggleOpen", "textFieldText"])
        }
    }

    // MARK: DocumentData's integration tests, in order, as one test (they share one file there)

    func makeTestCase() -> TestClass {
        TestClass(number: Int.random(in: 0...100), string: "Hello, world!", bool: Bool.random(),
                  data: "Hello, world!".data(using: .utf8)!, uuid: UUID(), array: ["Hello1", "Hello2", "Hello3"],
                  dict: ["1": UUID(), "2": UUID(), "3": UUID()], anyCodable: AnyCodable.allCases.randomElement()!,
                  ignored: "some")
    }

    @Test("the integration tests: create, default, change a value, delete, migrate")
    func integration() throws {
        try inTemporaryFolder { folder in
            // testCreate
            if TestClass.isPersisted { try TestClass.delete() }
            let testCase = makeTestCase()
            testCase.save()
            #expect(TestClass.url.lastPathComponent == "DefaultTest.storage.plist")
            #expect(try storedDictionary(TestClass.url).keys
                    == ["NUMBER", "STRING", "BOOL", "DATA", "UUID", "ARRAY", "DICT", "CODABLE"])

            // testDefault
            let defaultData = TestClass.default
            #expect(defaultData.ignored.isEmpty)
            #expect(defaultData.uuid == testCase.uuid && defaultData.dict == testCase.dict)

            // testChangeValue
            let data = TestClass.default
            data.string = "Bonjour!"
            #expect(TestClass.default.string == "Bonjour!")

            // testDelete
            try TestClass.delete()
            #expect(TestClass.isPersisted == false)

            // testMigration, from a file the previous version wrote under the old keys
            struct Version1: Codable {
                var number: Int
                var string: String
                var bool: Bool
                var data: Data
                var uuid: UUID
                var array: [String]
                var dict: [String: UUID]
                var anyCodable: AnyCodable
                enum CodingKeys: String, CodingKey {
                    case number = "N", string = "S", bool = "B", data = "D", uuid = "U", array = "A", dict = "I", anyCodable = "E"
                }
            }
            let old = Version1(number: 7, string: "old", bool: true, data: Data([1]), uuid: UUID(), array: ["x"],
                               dict: ["k": UUID()], anyCodable: .v2)
            try writeAsDocumentData(old, to: TestClass.url)
            #expect(TestClass.shouldMigrate)
            TestClass.migrate()
            #expect(!TestClass.shouldMigrate)
            let migrated = try Data(contentsOf: TestClass.url)
            let decoder = PropertyListDecoder()
            let result = try? decoder.decode(TestClass.self, from: migrated)
            #expect(result != nil)
            #expect(result?.number == 7 && result?.uuid == old.uuid && result?.anyCodable == .v2 && result?.dict == old.dict)
            #expect(try storedDictionary(TestClass.url)["N"] == nil)
        }
    }
}

/// Counts observation callbacks (run synchronously on the setting thread here).
final class ChangeCounter: @unchecked Sendable {
    var count = 0
}
