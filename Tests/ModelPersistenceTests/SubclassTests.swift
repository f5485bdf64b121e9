import Foundation
import PlistCodec
import Testing
import TestSupport
@testable import ModelPersistence

/// A subclass of DocumentData's `SomeModel` (a plain class): it inherits the conformance, with no
/// `@PersistedModel` of its own.
class AnnotatedModel: SomeModel {
    /// The subclass's own stored property: in memory only.
    var note: String = "fresh"
}

/// What a subclass of a persisted model is (ModelPersistence.docc, "A subclass is not a model of its
/// own"): the superclass's file and persisted properties, the whole API, and nothing of its own in the file.
@Suite("ModelPersistence: subclasses of a persisted model")
struct SubclassTests {
    @Test("a subclass shares its superclass's file; its own stored property is not persisted")
    func subclassSharesTheFile() throws {
        try withTemporaryLocation { _ in
            #expect(AnnotatedModel.url == SomeModel.url)
            #expect(AnnotatedModel.url.lastPathComponent == "SomeModel.storage.plist")
            let child = AnnotatedModel(string: "from the subclass", bool: true, bool2: true)
            child.note = "changed"
            #expect(!SomeModel.isPersisted)   // the subclass's own property never touches the file
            #expect(child.string == "from the subclass")   // an inherited one does: the first use writes it
            let stored = try storedDictionary(SomeModel.url)
            #expect(stored.hasSameContents(as: ["string": .string("from the subclass"), "bool": .bool(true)]), "\(stored)")

            let parent = SomeModel(string: "", bool: false, bool2: false)
            #expect(parent.string == "from the subclass" && parent.bool)
            let another = AnnotatedModel(string: "", bool: false, bool2: false)
            #expect(another.string == "from the subclass")
            #expect(another.note == "fresh")   // not in the file: what the subclass's initializer gave
        }
    }

    @Test("the API works on a subclass's instance, typed as the subclass")
    func apiOnASubclass() throws {
        try withTemporaryLocation { _ in
            let child = AnnotatedModel(string: "a", bool: false, bool2: false)
            let note: String = try child.update { (model: AnnotatedModel) in
                model.string = "updated"
                model.bool = true
                model.note = "seen by update"
                return model.note
            }
            #expect(note == "seen by update")
            child.withBatch { (model: AnnotatedModel) in
                for i in 0..<50 { model.string = "batch \(i)" }
            }
            try child.flush()
            #expect(child.persistenceError == nil)
            let stored = try storedDictionary(SomeModel.url)
            #expect(stored.hasSameContents(as: ["string": .string("batch 49"), "bool": .bool(true)]), "\(stored)")
        }
    }

    @Test("update's async form works on a subclass's instance")
    func asyncUpdateOnASubclass() async throws {
        try await withTemporaryLocation { _ in
            let child = AnnotatedModel(string: "a", bool: false, bool2: false)
            let note = try await child.update { (model: AnnotatedModel) -> String in
                model.bool = true
                return model.note
            }
            #expect(note == "fresh")
            let stored = try storedDictionary(SomeModel.url)
            #expect(stored.hasSameContents(as: ["string": .string("a"), "bool": .bool(true)]), "\(stored)")
        }
    }
}
