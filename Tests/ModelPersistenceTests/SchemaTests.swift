import Foundation
import PlistCodec
import Testing
import TestSupport
@testable import ModelPersistence

@Suite("ModelPersistence: schema evolution")
struct SchemaTests {
    @Test("unknown keys survive a rewrite, after the model's own keys")
    func unknownKeysSurvive() throws {
        try withTemporaryLocation { _ in
            let nested: PlistValue = .dictionary(["a": .int(1), "b": .array([.string("x"), .real(2.5)])])
            let file: PlistDictionary = ["future": .string("keep me"), "bool": .bool(false), "nested": nested,
                                         "string": .string("old")]
            try PlistValue.dictionary(file).serialized(as: .binary).write(to: SomeModel.url)
            let model = SomeModel(string: "", bool: false, bool2: false)
            #expect(model.string == "old")
            model.bool = true
            let stored = try storedDictionary(SomeModel.url)
            #expect(stored.keys == ["string", "bool", "future", "nested"])
            #expect(stored["future"] == .string("keep me"))
            #expect(stored["nested"] == nested)
            #expect(stored["bool"] == .bool(true))
        }
    }

    @Test("a property added since the file was written keeps its initial value, and is written on the next set")
    func addedProperty() throws {
        try withTemporaryLocation { _ in
            try PlistValue.dictionary(["string": .string("old")]).serialized(as: .binary).write(to: SomeModel.url)
            let model = SomeModel(string: "", bool: true, bool2: false)
            #expect(model.string == "old")
            #expect(model.bool == true)
            model.bool = false
            #expect(try storedDictionary(SomeModel.url).keys == ["string", "bool"])
        }
    }

    @Test("a renamed property reads its previous key, and the next write moves it to the new key")
    func previousKey() throws {
        try withTemporaryLocation { _ in
            try PlistValue.dictionary(["name": .string("Ann")]).serialized(as: .binary).write(to: Profile.url)
            let profile = Profile()
            #expect(profile.userName == "Ann")
            profile.userName = "Bea"
            let stored = try storedDictionary(Profile.url)
            #expect(stored["userName"] == .string("Bea"))
            #expect(stored["name"] == nil)
        }
    }

    @Test("a nil optional is left out of the file, as a Codable struct leaves it out")
    func optionalNil() throws {
        struct ProfileFields: Codable { var userName: String; var nickname: String? }
        try withTemporaryLocation { _ in
            let profile = Profile()
            profile.userName = "Ann"
            let first = try Data(contentsOf: Profile.url)
            #expect(first == (try PropertyListEncoder().encode(ProfileFields(userName: "Ann"))))
            profile.nickname = "A"
            let second = try Data(contentsOf: Profile.url)
            #expect(second == (try PropertyListEncoder().encode(ProfileFields(userName: "Ann", nickname: "A"))))
            let other = Profile()
            #expect(other.nickname == "A")
            profile.nickname = nil
            let stored = try storedDictionary(Profile.url)
            #expect(stored["nickname"] == nil)
            // A key that disappears from the file makes the optional nil in other instances.
            #expect(waitUntil(timeout: .seconds(5)) { other.nickname == nil })
        }
    }

    @Test("a value of the wrong type is reported, and the property keeps its value")
    func wrongType() throws {
        try withTemporaryLocation { _ in
            try PlistValue.dictionary(["string": .int(5), "bool": .bool(true)]).serialized(as: .binary).write(to: SomeModel.url)
            let model = SomeModel(string: "init", bool: false, bool2: false)
            #expect(model.string == "init")
            #expect(model.bool == true)
            guard case .undecodableValue(let key, _)? = model.persistenceError?.cause else {
                Issue.record("expected an undecodable-value error, got \(String(describing: model.persistenceError))")
                return
            }
            #expect(key == "string")
        }
    }
}
