import Foundation
import PlistCodec
import Testing
import TestSupport
@testable import ModelPersistence

@Suite("ModelPersistence: first use, format and location")
struct FirstUseTests {
    @Test("first use writes the current values, exactly PropertyListEncoder's binary bytes")
    func firstUseWritesBinary() throws {
        try withTemporaryLocation { temp in
            let model = SomeModel(string: "hello", bool: false, bool2: true)
            #expect(!SomeModel.isPersisted)
            #expect(model.string == "hello")
            #expect(SomeModel.isPersisted)
            let bytes = try Data(contentsOf: temp.file("SomeModel.storage.plist"))
            let expected = try PropertyListEncoder().encode(SomeModelFields(string: "hello", bool: false))
            #expect(bytes == expected, "\(Fixtures.firstDifference(bytes, expected) ?? "")")
            #expect(try storedDictionary(SomeModel.url).keys == ["string", "bool"])   // bool2 is not stored
            #expect(writeCount(model) == 1)
        }
    }

    @Test("XML mode writes exactly PropertyListEncoder's XML (keys sorted)")
    func xmlMode() throws {
        try withTemporaryLocation { temp in
            let model = XMLSomeModel(string: "hello", bool: false)
            model.bool = false   // the first use writes; setting the same value rewrites nothing
            let bytes = try Data(contentsOf: temp.file("XMLSomeModel.storage.plist"))
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .xml
            let expected = try encoder.encode(SomeModelFields(string: "hello", bool: false))
            #expect(bytes == expected, "\(Fixtures.firstDifference(bytes, expected) ?? "")")
            #expect(String(decoding: bytes, as: UTF8.self).range(of: "<key>bool</key>")!.lowerBound
                    < String(decoding: bytes, as: UTF8.self).range(of: "<key>string</key>")!.lowerBound)
            #expect(writeCount(model) == 1)
        }
    }

    @Test("a set rewrites the file as PropertyListEncoder would encode the new values")
    func setRewrites() throws {
        try withTemporaryLocation { _ in
            let model = SomeModel(string: "hello", bool: false, bool2: true)
            model.bool = true
            model.string = "world"
            let expected = try PropertyListEncoder().encode(SomeModelFields(string: "world", bool: true))
            #expect(try Data(contentsOf: SomeModel.url) == expected)
            #expect(writeCount(model) == 3)
        }
    }

    @Test("an existing file's values win over what init assigned, and nothing is rewritten")
    func existingFileWins() throws {
        try withTemporaryLocation { _ in
            let original = try PropertyListEncoder().encode(SomeModelFields(string: "on disk", bool: true))
            try original.write(to: SomeModel.url)
            let model = SomeModel(string: "from init", bool: false, bool2: false)
            #expect(model.bool == true)
            #expect(model.string == "on disk")
            #expect(model.bool2 == false)
            #expect(try Data(contentsOf: SomeModel.url) == original)
            #expect(writeCount(model) == 0)
        }
    }

    @Test("a file in the other format is read, and rewritten in the model's format")
    func readsEitherFormat() throws {
        try withTemporaryLocation { _ in
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .xml
            try encoder.encode(SomeModelFields(string: "xml", bool: true)).write(to: SomeModel.url)
            let model = SomeModel(string: "", bool: false, bool2: false)
            #expect(model.string == "xml")
            model.string = "binary now"
            #expect(PlistFormat.detect(try Data(contentsOf: SomeModel.url)) == .binary)
        }
    }

    @Test("url, isPersisted and delete follow the task-local folder")
    func location() throws {
        let temp = try TemporaryFolder(prefix: "mp-test")
        let other = try TemporaryFolder(prefix: "mp-test")
        let model = PersistenceLocation.$folder.withValue(temp.url) { SomeModel(string: "a", bool: true, bool2: false) }
        #expect(model._$persistence.url == nil)   // nothing is resolved before first use
        try PersistenceLocation.$folder.withValue(temp.url) {
            #expect(SomeModel.url == temp.file("SomeModel.storage.plist").standardizedFileURL)
            #expect(!SomeModel.isPersisted)
            _ = model.string
            #expect(SomeModel.isPersisted)
            #expect(model._$persistence.url == SomeModel.url)
            try SomeModel.delete()
            #expect(!SomeModel.isPersisted)
            try SomeModel.delete()   // a missing file is not an error
        }
        // The instance keeps its folder outside the binding; static members read the binding they run in.
        PersistenceLocation.$folder.withValue(other.url) {
            #expect(SomeModel.url == other.file("SomeModel.storage.plist").standardizedFileURL)
            model.string = "b"   // the deleted file is written fresh, in the instance's own folder
            #expect(!SomeModel.isPersisted)
        }
        let stored = try storedDictionary(temp.file("SomeModel.storage.plist"))
        #expect(stored["string"] == .string("b"))
        #expect(stored["bool"] == .bool(true))
        #expect(PersistenceLocation.url(forDocument: "X").lastPathComponent == "X.storage.plist")
        #expect(PersistenceLocation.$folder.withValue(nil) { PersistenceLocation.currentFolder } == PersistenceLocation.defaultFolder)
    }

    @Test("a missing folder is created on first use")
    func createsFolder() throws {
        let temp = try TemporaryFolder(prefix: "mp-test")
        let nested = temp.folder("a/b")
        try PersistenceLocation.$folder.withValue(nested) {
            let model = Counter()
            model.count = 3
            let stored = try storedDictionary(Counter.url)
            #expect(stored["count"] == .int(3))
        }
    }
}
