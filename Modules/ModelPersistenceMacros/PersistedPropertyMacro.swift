import MacroSupport
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty` (added by `@PersistedModel`): turns a stored `var` into accessors over a private
/// backing `_name`, reading through the model's persistence context and notifying observers.
///
/// A get is the hot path, so two things an `@Observable` getter pays are left out:
/// - the key path literal (a runtime lookup, a retain and a release per get): a non-generic class
///   keeps it in a private static `_$keyPath_name`, made once;
/// - dynamic exclusivity checks on the backing storage (`@exclusivity(unchecked)`): the accessors
///   are the only code that touches it, and none holds an access while other code runs.
public struct PersistedPropertyMacro {}

extension PersistedPropertyMacro {
    /// The enclosing class's name when it is not generic (a generic class cannot have static stored
    /// properties, so it keeps the key path literals).
    static func cachingClassName(_ context: some MacroExpansionContext) -> String? {
        guard let type = context.lexicalContext.first?.as(ClassDeclSyntax.self),
              type.genericParameterClause == nil else { return nil }
        return type.name.trimmed.text
    }

    /// The key path expression the accessors hand to the observation registrar.
    static func keyPath(_ name: String, _ context: some MacroExpansionContext) -> String {
        cachingClassName(context) == nil ? "\\.\(name)" : "Self._$keyPath_\(name)"
    }
}

extension PersistedPropertyMacro: AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let name = variable.singleIdentifier?.identifier.trimmed.text else { return [] }
        // The file's key: the attribute's argument (a `@ModelCodingKey` raw value), else the name.
        var key = name
        if case .argumentList(let arguments)? = node.arguments,
           let literal = arguments.first?.expression.as(StringLiteralExprSyntax.self),
           let value = literal.representedLiteralValue {
            key = value
        }
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
                access(keyPath: \(raw: keyPath(name, context)))
                return _\(raw: name)
            }
            """,
            """
            set {
                _$persistence.willRead(self)
                withMutation(keyPath: \\.\(raw: name)) {
                    _\(raw: name) = newValue
                }
                _$persistence.didWrite(self, key: "\(raw: key.literalEscaped)")
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
        var peers: [DeclSyntax] = [
            "@ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _\(raw: name)\(raw: type)\(raw: initial)",
        ]
        if let className = cachingClassName(context) {
            peers.append("private static let _$keyPath_\(raw: name) = \\\(raw: className).\(raw: name)")
        }
        return peers
    }
}
