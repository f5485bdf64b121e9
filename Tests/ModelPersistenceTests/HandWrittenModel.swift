import Foundation
@testable import ModelPersistence

// The runtime tests' models. (They were first written out by hand in the macro's expansion, so the
// runtime could be tested before the macros existed; the expansion tests now pin that shape.)

// DocumentData's example, `SomeModel`, is in OriginalExamplesTests.swift, as the original wrote it.

/// The same two properties, written as XML.
@PersistedModel
final class XMLSomeModel {
    static let persistenceFormat: PersistenceFormat = .xml
    var string: String
    var bool: Bool

    init(string: String, bool: Bool) {
        self.string = string
        self.bool = bool
    }
}

/// A counter for atomic updates.
@PersistedModel
final class Counter {
    var count: Int = 0

    init() {}
}

/// A renamed property and an optional one.
@PersistedModel
final class Profile {
    @PreviousKeys("name") var userName: String = ""
    var nickname: String? = nil

    init() {}
}

/// Codable twins of the models: what `PropertyListEncoder` writes for the same fields.
struct SomeModelFields: Codable { var string: String; var bool: Bool }
