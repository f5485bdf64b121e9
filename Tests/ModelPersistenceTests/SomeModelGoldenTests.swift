import Foundation
import ModelPersistence
import TestSupport
import Synchronization
import Testing

/// DocumentData's example itself is `SomeModel` (OriginalExamplesTests.swift, a plain class); this is its
/// XML twin, a `final` class with `@StorageName`.
enum Golden {
    /// The same model, written as XML.
    @PersistedModel
    final class SomeModelXML {
        @StorageName static let storageName = "SomeModelXML"
        static let persistenceFormat: PersistenceFormat = .xml
        var string: String
        var bool: Bool
        @PersistedIgnore var bool2: Bool

        init(string: String, bool: Bool, bool2: Bool) {
            self.string = string
            self.bool = bool
            self.bool2 = bool2
        }
    }
}

/// A Codable struct with the persisted fields in declaration order: what `PropertyListEncoder` writes for it.
private struct SomeModelShape: Codable {
    var string: String
    var bool: Bool
}

@Suite struct SomeModelGoldenTests {
    private func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Fixtures.url("ModelPersistence/\(name)"))
    }

    @Test func binaryFileIsWhatPropertyListEncoderWrites() throws {
        let temp = try TemporaryFolder()
        try PersistenceLocation.$folder.withValue(temp.url) {
            #expect(SomeModel.url.lastPathComponent == "SomeModel.storage.plist")
            #expect(!SomeModel.isPersisted)
            let model = SomeModel(string: "hello", bool: false, bool2: true)
            #expect(model.string == "hello")  // first use writes the file
            let bytes = try Data(contentsOf: SomeModel.url)
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            let expected = try encoder.encode(SomeModelShape(string: "hello", bool: false))
            let golden = try fixture("SomeModel.storage.plist")
            #expect(bytes == expected)
            #expect(bytes == golden)
            #expect(SomeModel.isPersisted)
        }
    }

    @Test func xmlFileIsWhatPropertyListEncoderWrites() throws {
        let temp = try TemporaryFolder()
        try PersistenceLocation.$folder.withValue(temp.url) {
            let model = Golden.SomeModelXML(string: "hello", bool: false, bool2: true)
            #expect(model.bool == false)
            let bytes = try Data(contentsOf: Golden.SomeModelXML.url)
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .xml
            let expected = try encoder.encode(SomeModelShape(string: "hello", bool: false))
            let golden = try fixture("SomeModelXML.storage.plist")
            #expect(bytes == expected)
            #expect(bytes == golden)
            #expect(String(decoding: bytes, as: UTF8.self).range(of: "bool2") == nil)
        }
    }

    @Test func existingFileWinsOverInitAndIgnoredPropertiesStayInMemory() throws {
        let temp = try TemporaryFolder()
        PersistenceLocation.$folder.withValue(temp.url) {
            let first = SomeModel(string: "hello", bool: false, bool2: true)
            first.string = "changed"
            first.bool2 = false
            let second = SomeModel(string: "ignored", bool: true, bool2: true)
            #expect(second.string == "changed")
            #expect(second.bool == false)
            #expect(second.bool2 == true)
        }
    }

    @Test func observationFiresOnSet() throws {
        let temp = try TemporaryFolder()
        PersistenceLocation.$folder.withValue(temp.url) {
            let model = SomeModel(string: "a", bool: false, bool2: false)
            let fired = Atomic<Bool>(false)
            withObservationTracking { _ = model.string } onChange: { fired.store(true, ordering: .relaxed) }
            model.string = "b"
            let didFire = fired.load(ordering: .relaxed)
            #expect(didFire)
        }
    }
}
