import Foundation
import Observation
@testable import ModelPersistence

// Classes written out in exactly the shape `@PersistedModel` expands to, so the runtime can be tested
// before (and independently of) the macros. Each will become a one-line `@PersistedModel` class.

/// DocumentData's example: `@PersistedModel final class SomeModel { var string; var bool; @PersistedIgnored var bool2 }`.
final class SomeModel {
    var string: String {
        @storageRestrictions(initializes: _string) init(initialValue) { _string = initialValue }
        get { _$persistence.willRead(self); access(keyPath: \.string); return _string }
        set { _$persistence.willRead(self); withMutation(keyPath: \.string) { _string = newValue }; _$persistence.didWrite(self, key: "string") }
    }
    private var _string: String
    var bool: Bool {
        @storageRestrictions(initializes: _bool) init(initialValue) { _bool = initialValue }
        get { _$persistence.willRead(self); access(keyPath: \.bool); return _bool }
        set { _$persistence.willRead(self); withMutation(keyPath: \.bool) { _bool = newValue }; _$persistence.didWrite(self, key: "bool") }
    }
    private var _bool: Bool
    var bool2: Bool

    init(string: String, bool: Bool, bool2: Bool) {
        self.string = string
        self.bool = bool
        self.bool2 = bool2
    }

    static let _$persistedDocumentName: String = "SomeModel"
    static var _$persistedFields: [PersistedField<SomeModel>] { [
        PersistedField(key: "string", previousKeys: [], storage: \SomeModel._string, observed: \SomeModel.string),
        PersistedField(key: "bool", previousKeys: [], storage: \SomeModel._bool, observed: \SomeModel.bool),
    ] }
    let _$persistence = PersistenceContext<SomeModel>()
    private let _$observationRegistrar = Observation.ObservationRegistrar()
    nonisolated func access<Member>(keyPath: KeyPath<SomeModel, Member>) {
        _$observationRegistrar.access(self, keyPath: keyPath)
    }
    nonisolated func withMutation<Member, T>(keyPath: KeyPath<SomeModel, Member>, _ mutation: () throws -> T) rethrows -> T {
        try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
    }
}
extension SomeModel: ModelPersistence.PersistedModel, Observation.Observable {}

/// The same two properties, written as XML (`static let persistenceFormat: PersistenceFormat = .xml`).
final class XMLSomeModel {
    static let persistenceFormat: PersistenceFormat = .xml
    var string: String {
        @storageRestrictions(initializes: _string) init(initialValue) { _string = initialValue }
        get { _$persistence.willRead(self); access(keyPath: \.string); return _string }
        set { _$persistence.willRead(self); withMutation(keyPath: \.string) { _string = newValue }; _$persistence.didWrite(self, key: "string") }
    }
    private var _string: String
    var bool: Bool {
        @storageRestrictions(initializes: _bool) init(initialValue) { _bool = initialValue }
        get { _$persistence.willRead(self); access(keyPath: \.bool); return _bool }
        set { _$persistence.willRead(self); withMutation(keyPath: \.bool) { _bool = newValue }; _$persistence.didWrite(self, key: "bool") }
    }
    private var _bool: Bool

    init(string: String, bool: Bool) {
        self.string = string
        self.bool = bool
    }

    static let _$persistedDocumentName: String = "XMLSomeModel"
    static var _$persistedFields: [PersistedField<XMLSomeModel>] { [
        PersistedField(key: "string", previousKeys: [], storage: \XMLSomeModel._string, observed: \XMLSomeModel.string),
        PersistedField(key: "bool", previousKeys: [], storage: \XMLSomeModel._bool, observed: \XMLSomeModel.bool),
    ] }
    let _$persistence = PersistenceContext<XMLSomeModel>()
    private let _$observationRegistrar = Observation.ObservationRegistrar()
    nonisolated func access<Member>(keyPath: KeyPath<XMLSomeModel, Member>) {
        _$observationRegistrar.access(self, keyPath: keyPath)
    }
    nonisolated func withMutation<Member, T>(keyPath: KeyPath<XMLSomeModel, Member>, _ mutation: () throws -> T) rethrows -> T {
        try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
    }
}
extension XMLSomeModel: ModelPersistence.PersistedModel, Observation.Observable {}

/// A counter for read-modify-write tests.
final class Counter {
    var count: Int {
        @storageRestrictions(initializes: _count) init(initialValue) { _count = initialValue }
        get { _$persistence.willRead(self); access(keyPath: \.count); return _count }
        set { _$persistence.willRead(self); withMutation(keyPath: \.count) { _count = newValue }; _$persistence.didWrite(self, key: "count") }
    }
    private var _count: Int = 0

    init() {}

    static let _$persistedDocumentName: String = "Counter"
    static var _$persistedFields: [PersistedField<Counter>] { [
        PersistedField(key: "count", previousKeys: [], storage: \Counter._count, observed: \Counter.count),
    ] }
    let _$persistence = PersistenceContext<Counter>()
    private let _$observationRegistrar = Observation.ObservationRegistrar()
    nonisolated func access<Member>(keyPath: KeyPath<Counter, Member>) {
        _$observationRegistrar.access(self, keyPath: keyPath)
    }
    nonisolated func withMutation<Member, T>(keyPath: KeyPath<Counter, Member>, _ mutation: () throws -> T) rethrows -> T {
        try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
    }
}
extension Counter: ModelPersistence.PersistedModel, Observation.Observable {}

/// A renamed property (`@PreviousKeys("name") var userName`) and an optional one.
final class Profile {
    var userName: String {
        @storageRestrictions(initializes: _userName) init(initialValue) { _userName = initialValue }
        get { _$persistence.willRead(self); access(keyPath: \.userName); return _userName }
        set { _$persistence.willRead(self); withMutation(keyPath: \.userName) { _userName = newValue }; _$persistence.didWrite(self, key: "userName") }
    }
    private var _userName: String = ""
    var nickname: String? {
        @storageRestrictions(initializes: _nickname) init(initialValue) { _nickname = initialValue }
        get { _$persistence.willRead(self); access(keyPath: \.nickname); return _nickname }
        set { _$persistence.willRead(self); withMutation(keyPath: \.nickname) { _nickname = newValue }; _$persistence.didWrite(self, key: "nickname") }
    }
    private var _nickname: String? = nil

    init() {}

    static let _$persistedDocumentName: String = "Profile"
    static var _$persistedFields: [PersistedField<Profile>] { [
        PersistedField(key: "userName", previousKeys: ["name"], storage: \Profile._userName, observed: \Profile.userName),
        PersistedField(key: "nickname", previousKeys: [], storage: \Profile._nickname, observed: \Profile.nickname),
    ] }
    let _$persistence = PersistenceContext<Profile>()
    private let _$observationRegistrar = Observation.ObservationRegistrar()
    nonisolated func access<Member>(keyPath: KeyPath<Profile, Member>) {
        _$observationRegistrar.access(self, keyPath: keyPath)
    }
    nonisolated func withMutation<Member, T>(keyPath: KeyPath<Profile, Member>, _ mutation: () throws -> T) rethrows -> T {
        try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
    }
}
extension Profile: ModelPersistence.PersistedModel, Observation.Observable {}

/// Codable twins of the models: what `PropertyListEncoder` writes for the same fields.
struct SomeModelFields: Codable { var string: String; var bool: Bool }
