import SwiftSyntax

/// What `@PersistedModel` needs to know about a member, read from its syntax.
extension VariableDeclSyntax {
    /// Whether the declaration carries an attribute named `name` (with or without a module prefix).
    func hasAttribute(_ name: String) -> Bool {
        attributes.contains { element in
            guard case .attribute(let attribute) = element else { return false }
            return attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init) == name
        }
    }

    /// The attribute named `name`, if present.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in attributes {
            if case .attribute(let attribute) = element,
               attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init) == name {
                return attribute
            }
        }
        return nil
    }

    var isStatic: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    var isLazy: Bool { modifiers.contains { $0.name.tokenKind == .keyword(.lazy) } }

    var isLet: Bool { bindingSpecifier.tokenKind == .keyword(.let) }

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
        guard !isLet, !isStatic, !isLazy, bindings.count == 1, bindings.first?.accessorBlock == nil,
              let name = singleIdentifier?.identifier.text, !name.hasPrefix("_$") else { return false }
        let markers: Set<String> = ["PersistedIgnored", "PersistedIgnore", "_PersistedObserved"]
        let names = attributes.compactMap { element -> String? in
            guard case .attribute(let attribute) = element else { return "?" }
            return attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init)
        }
        return (names.contains("PersistedIgnored") || names.contains("PersistedIgnore")) && names.allSatisfy(markers.contains)
    }

    /// Whether the (first) binding has an initial value.
    var hasInitializer: Bool { bindings.first?.initializer != nil }

    /// The declared type of the (first) binding, if written.
    var declaredType: TypeSyntax? { bindings.first?.typeAnnotation?.type }

    /// Whether the declared type is an optional (`T?`, `T!`, `Optional<T>`): a `var` of it starts as `nil`.
    var isOptional: Bool {
        guard let type = declaredType else { return false }
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        let name = type.trimmedDescription
        return name.hasPrefix("Optional<") || name.hasPrefix("Swift.Optional<")
    }

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

    /// The single identifier this declaration binds, if it binds exactly one.
    var singleIdentifier: IdentifierPatternSyntax? {
        guard bindings.count == 1, let binding = bindings.first else { return nil }
        return binding.pattern.as(IdentifierPatternSyntax.self)
    }

    /// A stored property: no accessors other than observers.
    var isStored: Bool {
        guard let binding = bindings.first else { return false }
        switch binding.accessorBlock?.accessors {
        case .none: return true
        case .getter: return false
        case .accessors(let list):
            return list.allSatisfy { $0.accessorSpecifier.tokenKind == .keyword(.willSet) || $0.accessorSpecifier.tokenKind == .keyword(.didSet) }
        }
    }

    /// A `var` that `@PersistedModel` persists: stored, not static, not lazy, not ignored, one name.
    var isPersistable: Bool {
        !isLet && !isStatic && !isLazy && !isIgnored && isStored && singleIdentifier != nil
            && !(singleIdentifier?.identifier.text.hasPrefix("_$") ?? true)
            && bindings.first?.accessorBlock == nil
    }

    /// The string literals of `@PreviousKeys("a", "b")`.
    var previousKeys: [String] {
        guard let attribute = attribute(named: "PreviousKeys"),
              case .argumentList(let arguments)? = attribute.arguments else { return [] }
        return arguments.compactMap { $0.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue }
    }
}

extension DeclGroupSyntax {
    /// Whether the declaration has an attribute named `name`.
    func hasAttribute(_ name: String) -> Bool {
        attributes.contains { element in
            guard case .attribute(let attribute) = element else { return false }
            return attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init) == name
        }
    }
}
