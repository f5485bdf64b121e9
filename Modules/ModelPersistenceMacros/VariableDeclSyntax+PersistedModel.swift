import MacroSupport
import SwiftSyntax

/// What `@PersistedModel` needs to know about a member, read from its syntax (the shape of any stored
/// property is `MacroSupport`'s; what is persisted, ignored or observed is this plug-in's).
extension VariableDeclSyntax {
    /// Ignored explicitly, the `@StorageName` constant (which names the document and is never data,
    /// even when misdeclared as an instance `var`: that is an error of its own), or a backing property
    /// the macros generated.
    var isIgnored: Bool {
        hasAttribute("PersistedIgnored") || hasAttribute("PersistedIgnore") || hasAttribute("StorageName")
            || hasAttribute("_PersistedBacking")
    }

    /// An ignored stored `var` that `@PersistedModel` makes observable (as DocumentData does): marked
    /// `@PersistedIgnored` by the user, one name, no accessors, no other attribute (a property wrapper
    /// cannot take accessors), not static or lazy.
    var isObservedIgnored: Bool {
        guard isPlainStoredVar else { return false }
        let markers: Set<String> = ["PersistedIgnored", "PersistedIgnore", "_PersistedObserved"]
        let names = attributes.compactMap { element -> String? in
            guard case .attribute(let attribute) = element else { return "?" }
            return attribute.unqualifiedName
        }
        return (names.contains("PersistedIgnored") || names.contains("PersistedIgnore")) && names.allSatisfy(markers.contains)
    }

    /// Whether the declared type is an optional (`T?`, `T!`, `Optional<T>`): a `var` of it starts as `nil`.
    var isOptional: Bool { declaredType?.isOptional ?? false }

    /// Whether the declared type is one whose `init()` makes an empty value (DocumentData gives a
    /// decoded model's ignored properties `.init()`): strings, numbers, `Bool`, `Data`, arrays,
    /// dictionaries and sets.
    var startsEmpty: Bool {
        guard let type = declaredType else { return false }
        if type.is(ArrayTypeSyntax.self) || type.is(DictionaryTypeSyntax.self) { return true }
        let name = type.trimmedDescription
        let simple: Set<String> = ["String", "Substring", "Bool", "Int", "Int8", "Int16", "Int32", "Int64",
                                   "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float", "Data"]
        if simple.contains(name.hasPrefix("Swift.") ? String(name.dropFirst(6)) : name) { return true }
        return ["Array<", "Dictionary<", "Set<"].contains { name.hasPrefix($0) }
    }

    /// A `var` that `@PersistedModel` persists: a plain stored one (one name, not static or lazy, no
    /// accessors or observers) that is not ignored.
    var isPersistable: Bool {
        isPlainStoredVar && !isIgnored
    }

    /// The string literals of `@PreviousKeys("a", "b")`.
    var previousKeys: [String] {
        guard let attribute = attribute(named: "PreviousKeys"),
              case .argumentList(let arguments)? = attribute.arguments else { return [] }
        return arguments.compactMap { $0.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue }
    }
}
