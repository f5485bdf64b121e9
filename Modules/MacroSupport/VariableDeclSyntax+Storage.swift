import SwiftSyntax

/// Whether a `var` stores a value, and what runs around its stores.
extension VariableDeclSyntax {
    /// The first accessor of the first binding whose specifier is `specifier` (`.willSet`, `.get`, …);
    /// `nil` when there is none, or when the body is a bare getter (`var x: Int { 1 }`).
    package func accessor(_ specifier: Keyword) -> AccessorDeclSyntax? {
        guard case .accessors(let list)? = bindings.first?.accessorBlock?.accessors else { return nil }
        return list.first { $0.accessorSpecifier.tokenKind == .keyword(specifier) }
    }

    /// Whether the first binding has a `willSet` or a `didSet` observer.
    package var hasObservers: Bool {
        accessor(.willSet) != nil || accessor(.didSet) != nil
    }

    /// Whether the first binding stores its value: it has no accessors, or only observers
    /// (`willSet`, `didSet`). A getter (`{ 1 }`, `get { … }`) makes it computed.
    ///
    /// Says nothing of `static` or `lazy`; see `isPlainStoredVar`.
    package var isStored: Bool {
        guard let binding = bindings.first else { return false }
        switch binding.accessorBlock?.accessors {
        case .none:
            return true
        case .getter:
            return false
        case .accessors(let list):
            return list.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
        }
    }

    /// Whether this is a plain stored instance `var`, the kind a model macro can take over with
    /// accessors of its own: a `var`, not `static`, `class` or `lazy`, binding exactly one name with
    /// no accessors at all (not even observers), whose name does not start with `_$` (the prefix of
    /// the members the plug-ins generate).
    ///
    /// Attributes are not looked at: each macro excludes its own markers (`@Transient`, `@PersistedIgnored`).
    package var isPlainStoredVar: Bool {
        guard !isLet, !isStatic, !isLazy, let name = singleName, !name.hasPrefix("_$") else { return false }
        return bindings.first?.accessorBlock == nil
    }
}
