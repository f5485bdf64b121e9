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
/// The class may be `final` or not. A subclass inherits the persistence of its superclass: the same
/// file, the inherited properties and the whole API; its own stored properties are not persisted, and
/// `@PersistedModel` on the subclass is an error.
@attached(member, conformances: PersistedModel, Observable,
          names: named(_$persistence), named(_$observationRegistrar), named(access), named(withMutation),
          named(_$persistedDocumentName), named(_$persistedFields), named(_PersistedRoot), named(_$persistedRoot))
@attached(memberAttribute)
@attached(extension, conformances: PersistedModel, Observable)
public macro PersistedModel() = #externalMacro(module: "ModelPersistenceMacros", type: "PersistedModelMacro")

/// Added by `@PersistedModel` to each persisted property: routes its getter and setter through the store.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(`_$keyPath_`))
public macro _PersistedProperty() = #externalMacro(module: "ModelPersistenceMacros", type: "PersistedPropertyMacro")

/// Excludes a property of a `@PersistedModel` class from the file (and from observation).
@attached(peer)
public macro PersistedIgnored() = #externalMacro(module: "ModelPersistenceMacros", type: "MarkerMacro")

/// The spelling DocumentData's documentation uses for `@PersistedIgnored`; the same macro.
@attached(peer)
public macro PersistedIgnore() = #externalMacro(module: "ModelPersistenceMacros", type: "MarkerMacro")

/// Names the document: `@StorageName static let storageName = "Custom"` stores the model in
/// `Custom.storage.plist`. The name must be one non-empty string literal without `/`, `..` or NUL.
///
/// Only a `static let` may carry it (as in DocumentData); on an instance property or a `var` it is an
/// error, with a fix-it that makes the declaration `static let`. The constant is never persisted.
@attached(peer)
public macro StorageName() = #externalMacro(module: "ModelPersistenceMacros", type: "StorageNameMacro")

/// Reads a property under earlier keys when its own key is missing from the file (a renamed property):
/// `@PreviousKeys("name") var userName: String = ""`. The next write stores it under its current key.
@attached(peer)
public macro PreviousKeys(_ keys: String...) = #externalMacro(module: "ModelPersistenceMacros", type: "MarkerMacro")
