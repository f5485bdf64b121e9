import Foundation
import ModelPersistence

// DocumentData's documented examples (Plan-V-Studio/DocumentData at 247558d), copied as published, so
// code its users wrote compiles against ModelPersistence. Each carries where it comes from. The only
// change is named where it is made: `import DocumentData` becomes `import ModelPersistence`.

// MARK: README.md, "Quick Start"
// The README shows the class first without and then with the macro (`// ...` standing for the same
// body); here the two snippets are one declaration. Without the macro the class has no initializer
// and would not compile on its own, in DocumentData either.

@PersistedModel
class UserData {
    var username: String
    var password: Data
    var universalID: UUID
}

// MARK: Sources/DocumentData/DocumentData.swift, `@PersistedModel`'s documentation

@PersistedModel
class UserInformation {
    var username: String
    var password: Data

    init(username: String, password: Data) {
        self.username = username
        self.password = password
    }
}

/// The documentation's `let information = UserInformation.default`, as a function (a top-level
/// statement cannot stand in a test target).
func documentedDefault() -> UserInformation {
    let information = UserInformation.default
    return information
}

// MARK: `@StorageName`'s documentation ("I just need to do like this")

@PersistedModel
class UserScheme {
    // persisted properties
    @StorageName
    static let storageName = "Default"
}

// MARK: `@ModelCodingKey`'s documentation

@PersistedModel
final class UserProfile {
    var username: String
    var password: Data

    @ModelCodingKey
    enum CustomizeCodingKey: String, CodingKey {
        case username = "FILUsername"
        case password = "USRPassword"
    }
}

// MARK: Documentation.docc/OperatingPrinciple/HowCanPersistenceFileWork.md, "Examples"

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

// MARK: Tests/DocumentDataTests/DocumentDataTests.swift, the model its expansion test starts from

@PersistedModel
final class StoringData {
    var isFirstToggleOpen: Bool
    var textFieldText: String

    @PersistedIgnored
    var ignoredButObservedToggle: Bool

    @StorageName
    static let storeName = "Default"

    init(isFirstToggleOpen: Bool, textFieldText: String, ignoredButObservedToggle: Bool) {
        self.isFirstToggleOpen = isFirstToggleOpen
        self.textFieldText = textFieldText
        self.ignoredButObservedToggle = ignoredButObservedToggle
    }
}

// MARK: Tests/DocumentDataIntergrationTests/DocumentDataIntergrationTests.swift, its model
// (`#if canImport(DocumentData)` becomes `canImport(ModelPersistence)`.)

#if canImport(ModelPersistence)
@PersistedModel
final class TestClass {
    @StorageName
    static let name = "DefaultTest"

    var number: Int
    var string: String
    var bool: Bool
    var data: Data
    var uuid: UUID
    var array: [String]
    var dict: [String: UUID]
    var anyCodable: AnyCodable

    @PersistedIgnored
    var ignored: String

    @ModelCodingKey
    enum CodingKeys: String, CodingKey {
        case number = "NUMBER"
        case string = "STRING"
        case bool = "BOOL"
        case data = "DATA"
        case uuid = "UUID"
        case array = "ARRAY"
        case dict = "DICT"
        case anyCodable = "CODABLE"
    }

    @Migration
    enum OldKeys: String, CodingKey {
        case number = "N"
        case string = "S"
        case bool = "B"
        case data = "D"
        case uuid = "U"
        case array = "A"
        case dict = "I"
        case anyCodable = "E"
    }

    init(number: Int, string: String, bool: Bool, data: Data, uuid: UUID, array: [String], dict: [String : UUID], anyCodable: AnyCodable, ignored: String) {
        self.number = number
        self.string = string
        self.bool = bool
        self.data = data
        self.uuid = uuid
        self.array = array
        self.dict = dict
        self.anyCodable = anyCodable
        self.ignored = ignored
    }
}

extension TestClass: CustomStringConvertible {
    var description: String {
        """
        Number:     \(number)
        String:     \(string)
        Boolean:    \(bool)
        Data:       \(data)
        UUID:       \(uuid)
        Array:      \(array)
        Dictionary: \(dict)
        Codable:    \(anyCodable)
        Ignored:    \(ignored)
        """
    }
}

enum AnyCodable: String, Codable, CaseIterable {
    case v1, v2, v3
}
#endif

/// The integration test decodes `TestClass` with `PropertyListDecoder`: the one line a model needs
/// to be `Decodable` (`@PersistedModel` writes its `init(from:)`; see ModelPersistence.docc's `WhatTheMacroGenerates.md`).
extension TestClass: Decodable {}
