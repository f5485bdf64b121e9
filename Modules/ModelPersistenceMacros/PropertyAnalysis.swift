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

    /// Ignored explicitly, or the `@StorageName` constant (which names the document and is never data,
    /// even when misdeclared as an instance `var`: that is an error of its own).
    var isIgnored: Bool { hasAttribute("PersistedIgnored") || hasAttribute("PersistedIgnore") || hasAttribute("StorageName") }

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
