@_exported import Observation

/// Makes a class persist its stored `var`s in `<Name>.storage.plist`, read and written through the
/// properties' ordinary getters and setters, and makes it `Observable`.
///
/// ```swift
/// @PersistedModel
/// class Settings {
///     var userName: String = ""
///     var launches: Int = 0
///     @PersistedIgnored var scratch: Int = 0
/// }
/// let settings = Settings()
/// settings.launches += 1            // written durably; not atomic across processes
/// try settings.update { $0.launches += 1 }   // atomic across processes
/// ```
///
/// The file is `Settings.storage.plist` in the application-support folder (see `PersistenceLocation`);
/// `@StorageName static let storageName = "Custom"` names it differently.
///
/// The model is `Encodable` with the file's keys, so `PropertyListEncoder().encode(model)` gives what the
/// file holds. A `final` class whose other stored properties can start without the file (an initial
/// value, an optional, or a type such as `String` that starts empty) also gets `init(from:)` and
/// DocumentData's `default`; `extension Model: Decodable {}` makes it `Decodable`.
///
/// The class may be `final` or not. A subclass inherits the persistence of its superclass: the same
/// file, the inherited properties and the whole API; its own stored properties are not persisted, and
/// `@PersistedModel` on the subclass is an error.
@attached(member, conformances: PersistedModel, Observable,
          names: named(_$persistence), named(_$observationRegistrar), named(access), named(withMutation),
          named(_$persistedDocumentName), named(_$persistedFields), named(_PersistedRoot), named(_$persistedRoot),
          named(encode), named(init), named(`default`), named(loadDefault))
@attached(memberAttribute)
@attached(extension, conformances: PersistedModel, Observable)
public macro PersistedModel() = #externalMacro(module: "ModelPersistenceMacros", type: "PersistedModelMacro")

/// Added by `@PersistedModel` to each persisted property: routes its getter and setter through the store.
/// The argument, when present, is the property's key in the file (from `@ModelCodingKey`); without one
/// the key is the property's name.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(`_$keyPath_`))
public macro _PersistedProperty(_ key: String...) = #externalMacro(module: "ModelPersistenceMacros", type: "PersistedPropertyMacro")

/// Excludes a property of a `@PersistedModel` class from the file. The property stays observable (as in
/// DocumentData): a stored `var` with no other attribute gets accessors that report reads and changes,
/// so SwiftUI views bound to it update. It is memory only: another instance does not see it.
@attached(peer)
public macro PersistedIgnored() = #externalMacro(module: "ModelPersistenceMacros", type: "MarkerMacro")

/// Added by `@PersistedModel` to each `@PersistedIgnored` stored `var`: keeps it observable.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedObserved() = #externalMacro(module: "ModelPersistenceMacros", type: "ObservedIgnoredMacro")

/// Marks the private backing property the macros generate (never persisted or observed again).
@attached(peer)
public macro _PersistedBacking() = #externalMacro(module: "ModelPersistenceMacros", type: "MarkerMacro")

/// Names the file's keys, DocumentData's way: on a nested `CodingKey` enum with `String` raw values,
/// one case per persisted property, named after it, whose raw value is the property's key in the file.
///
/// ```swift
/// @PersistedModel
/// final class UserProfile {
///     var username: String = ""
///     var password: Data = Data()
///
///     @ModelCodingKey
///     enum CustomizeCodingKey: String, CodingKey {
///         case username = "FILUsername"
///         case password = "USRPassword"
///     }
/// }
/// ```
///
/// The keys are read and written (another program, or an earlier version of the app, reads the same
/// file), and `Codable` uses them too. Every persisted property needs a case; a case that names no
/// persisted property, an `Int`-keyed enum or one that is not a `CodingKey` is an error.
@attached(peer)
public macro ModelCodingKey() = #externalMacro(module: "ModelPersistenceMacros", type: "CodingKeyEnumMacro")

/// Lists the keys an earlier version of the model wrote, DocumentData's way: on a nested `CodingKey`
/// enum with one case per renamed property, named after it, whose raw value is its old key. The model
/// reads the old keys when the new ones are missing, conforms to `Migratable`, and `migrate()`
/// rewrites the file under the new keys.
///
/// ```swift
/// @PersistedModel
/// final class Profile {
///     var name: String = ""
///     var age: Int = 0
///
///     @Migration
///     enum OldKeys: String, CodingKey {
///         case name = "n"        // version 1 wrote "n"
///         case age = "a"
///     }
/// }
/// if Profile.shouldMigrate { Profile.migrate() }   // the file now holds "name" and "age"
/// ```
@attached(peer)
public macro Migration() = #externalMacro(module: "ModelPersistenceMacros", type: "CodingKeyEnumMacro")

/// The spelling DocumentData's documentation uses for `@PersistedIgnored`; the same macro.
@attached(peer)
public macro PersistedIgnore() = #externalMacro(module: "ModelPersistenceMacros", type: "MarkerMacro")

/// Names the document: `@StorageName static let storageName = "Custom"` stores the model in
/// `Custom.storage.plist`. The name must be one non-empty string literal without `/`, `..` or NUL.
///
/// Only a `static let` may carry it (as in DocumentData); on an instance property or a `var` it is an
/// error, with a fix-it that makes the declaration `static let`. The constant is never persisted.
///
/// ```swift
/// @PersistedModel
/// final class Settings {
///     @StorageName static let storageName = "Preferences"   // Preferences.storage.plist
///     var theme: String = "light"
/// }
/// ```
@attached(peer)
public macro StorageName() = #externalMacro(module: "ModelPersistenceMacros", type: "StorageNameMacro")

/// Reads a property under earlier keys when its own key is missing from the file (a renamed property):
/// `@PreviousKeys("name") var userName: String = ""`. The next write stores it under its current key.
///
/// ```swift
/// @PersistedModel
/// final class Profile {
///     @PreviousKeys("name", "user")      // tried in this order when "userName" is missing
///     var userName: String = ""
/// }
/// ```
@attached(peer)
public macro PreviousKeys(_ keys: String...) = #externalMacro(module: "ModelPersistenceMacros", type: "MarkerMacro")
