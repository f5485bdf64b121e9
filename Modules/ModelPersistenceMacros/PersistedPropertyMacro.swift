import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty` (added by `@PersistedModel`): turns a stored `var` into accessors over a private
/// backing `_name`, reading through the model's persistence context and notifying observers.
public struct PersistedPropertyMacro {}

extension PersistedPropertyMacro: AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
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
                _$persistence.willRead(self)
                access(keyPath: \\.\(raw: name))
                return _\(raw: name)
            }
            """,
            """
            set {
                _$persistence.willRead(self)
                withMutation(keyPath: \\.\(raw: name)) {
                    _\(raw: name) = newValue
                }
                _$persistence.didWrite(self, key: "\(raw: name)")
            }
            """,
        ]
    }
}

extension PersistedPropertyMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let binding = variable.bindings.first,
              let name = variable.singleIdentifier?.identifier.trimmed.text else { return [] }
        let type = binding.typeAnnotation.map { ": \($0.type.trimmedDescription)" } ?? ""
        let initial = binding.initializer.map { " = \($0.value.trimmedDescription)" } ?? ""
        return ["@ModelPersistence.PersistedIgnored private var _\(raw: name)\(raw: type)\(raw: initial)"]
    }
}
