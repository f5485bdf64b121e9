import SwiftSyntax

/// The access level a declaration's modifiers give it, spelled as the prefix of a generated declaration.
extension WithModifiersSyntax {
    /// Whether the declaration is `public` or `open`.
    package var isPublic: Bool {
        hasModifier(.public) || hasModifier(.open)
    }

    /// `"public "` for a `public` or `open` declaration, else `""`: the access of the members a macro
    /// adds to a type, which are public exactly when the type is (an `open` class's are not `open`).
    package var publicAccessPrefix: String {
        isPublic ? "public " : ""
    }

    /// The access of a declaration that can set this one's value, as a prefix (`"private "`, or `""`
    /// when none is written): the setter's level when it is restricted (`public private(set) var` gives
    /// `"private "`), else the declaration's own; `open` is spelled `public`, and `package`, `internal`
    /// and `fileprivate` are kept.
    package var setterAccessPrefix: String {
        let levels: [Keyword] = [.open, .public, .package, .internal, .fileprivate, .private]
        var access = ""
        for modifier in modifiers {
            guard case .keyword(let keyword) = modifier.name.tokenKind, levels.contains(keyword) else { continue }
            let level = keyword == .open ? "public" : modifier.name.text
            if modifier.detail?.detail.text == "set" { return level + " " }
            access = level + " "
        }
        return access
    }
}
