import MacroSupport
import SwiftSyntax
import SwiftSyntaxMacros

/// `@_PersistedObserved` (added by `@PersistedModel` to each `@PersistedIgnored` stored `var`): keeps the
/// property out of the file but observable, as DocumentData's `@PersistedIgnored` is: accessors over a
/// private backing `_name` that report reads and changes to the model's observation registrar.
public struct ObservedIgnoredMacro {}

extension ObservedIgnoredMacro: AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.isObservedIgnored,
              let name = variable.singleIdentifier?.identifier.trimmed.text else { return [] }
        return [
            """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = initialValue
            }
            """,
            """
            get {
                access(keyPath: \\.\(raw: name))
                return _\(raw: name)
            }
            """,
            """
            set {
                withMutation(keyPath: \\.\(raw: name)) {
                    _\(raw: name) = newValue
                }
            }
            """,
        ]
    }
}

extension ObservedIgnoredMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.isObservedIgnored,
              let binding = variable.bindings.first,
              let name = variable.singleIdentifier?.identifier.trimmed.text else { return [] }
        let type = binding.typeAnnotation.map { ": \($0.type.trimmedDescription)" } ?? ""
        let initial = binding.initializer.map { " = \($0.value.trimmedDescription)" } ?? ""
        return ["@ModelPersistence._PersistedBacking private var _\(raw: name)\(raw: type)\(raw: initial)"]
    }
}
