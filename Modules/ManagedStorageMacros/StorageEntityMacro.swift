import MacroSupport
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@StorageEntity`: the table mapping, the accessors, the read-only copy and the conformances.
public struct StorageEntityMacro {}

/// A property `@StorageEntity` stores.
struct StoredProperty {
    let name: String
    let type: String
    /// `deleteRule: .cascade, inverse: \X.y` from `@Relationship(...)`, or `originalName: "a", default: 1`
    /// from `@Attribute(...)`: the descriptor's extra arguments.
    let relationshipArguments: String?
}

extension StorageEntityMacro {
    /// The stored properties of `classDecl`, in order.
    static func storedProperties(_ classDecl: ClassDeclSyntax) -> [StoredProperty] {
        classDecl.memberBlock.members.compactMap { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self), variable.isStoredCandidate,
                  let binding = variable.bindings.first, binding.initializer == nil,
                  let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmed.text,
                  let type = binding.typeAnnotation?.type.trimmedDescription else { return nil }
            var arguments: String?
            if let attribute = variable.attribute(named: "Attribute"), case .argumentList(let list)? = attribute.arguments {
                // `originalName:` and `default:`, passed on verbatim: the property's type checks the default.
                arguments = list.map { $0.with(\.trailingComma, nil).trimmedDescription }.joined(separator: ", ")
            }
            if let attribute = variable.attribute(named: "Relationship") {
                var parts: [String] = []
                if case .argumentList(let list)? = attribute.arguments {
                    for argument in list {
                        if argument.label?.text == "inverse",
                           let inverse = argument.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue {
                            parts.append("inverse: \\\(relationshipTarget(type)).\(inverse)")
                        } else {
                            parts.append(argument.with(\.trailingComma, nil).trimmedDescription)
                        }
                    }
                }
                arguments = parts.joined(separator: ", ")
            }
            return StoredProperty(name: name, type: type, relationshipArguments: arguments)
        }
    }

    /// The entity a relationship's type names: `Order` for `Order?`, `[Order]`, `Optional<Order>`, `Array<Order>`.
    static func relationshipTarget(_ type: String) -> String {
        var name = type
        if name.hasSuffix("?") || name.hasSuffix("!") { name.removeLast() }
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        for wrapper in ["Optional<", "Array<", "Swift.Optional<", "Swift.Array<"] where name.hasPrefix(wrapper) && name.hasSuffix(">") {
            name = String(name.dropFirst(wrapper.count).dropLast())
        }
        return name
    }

    static func validate(_ declaration: some DeclGroupSyntax, node: AttributeSyntax,
                         in context: some MacroExpansionContext) -> ClassDeclSyntax? {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: StorageEntityDiagnostic.notAClass))
            return nil
        }
        guard classDecl.hasModifier(.final) else {
            let fixIt = FixIt(message: StorageEntityFixIt(message: "make the class final"),
                              changes: [.replace(oldNode: Syntax(classDecl.classKeyword),
                                                 newNode: Syntax(TokenSyntax.identifier("final class", leadingTrivia: classDecl.classKeyword.leadingTrivia,
                                                                                        trailingTrivia: classDecl.classKeyword.trailingTrivia)))])
            context.diagnose(Diagnostic(node: classDecl.classKeyword, message: StorageEntityDiagnostic.notFinal, fixIts: [fixIt]))
            return nil
        }
        return classDecl
    }

    /// Diagnoses the members `@StorageEntity` cannot store.
    static func diagnoseMembers(_ classDecl: ClassDeclSyntax, in context: some MacroExpansionContext) {
        for member in classDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic,
                  !variable.hasAttribute("Transient") else { continue }
            if variable.isLet {
                context.diagnose(Diagnostic(node: variable.bindingSpecifier, message: StorageEntityDiagnostic.letProperty))
                continue
            }
            guard variable.isStoredCandidate || variable.hasObservers || variable.bindings.count > 1 else { continue }
            if variable.hasObservers {
                context.diagnose(Diagnostic(node: variable.bindingSpecifier, message: StorageEntityDiagnostic.observers))
            } else if variable.bindings.count > 1 {
                context.diagnose(Diagnostic(node: variable.bindingSpecifier, message: StorageEntityDiagnostic.multipleBindings))
            } else if let binding = variable.bindings.first, let initializer = binding.initializer {
                context.diagnose(Diagnostic(node: initializer, message: StorageEntityDiagnostic.initialValue))
            } else if variable.bindings.first?.typeAnnotation == nil {
                context.diagnose(Diagnostic(node: variable.bindingSpecifier, message: StorageEntityDiagnostic.missingType))
            }
        }
    }
}

extension StorageEntityMacro: MemberMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let classDecl = validate(declaration, node: node, in: context) else { return [] }
        diagnoseMembers(classDecl, in: context)
        let typeName = classDecl.name.trimmed.text
        let access = classDecl.publicAccessPrefix
        var entityName = typeName
        if case .argumentList(let arguments)? = node.arguments,
           let argument = arguments.first(where: { $0.label?.text == "name" }),
           let literal = argument.expression.as(StringLiteralExprSyntax.self),
           let value = literal.representedLiteralValue {
            entityName = value
        }
        var originalName: String?
        if case .argumentList(let arguments)? = node.arguments,
           let argument = arguments.first(where: { $0.label?.text == "originalName" }),
           let literal = argument.expression.as(StringLiteralExprSyntax.self) {
            originalName = literal.representedLiteralValue
        }
        let properties = storedProperties(classDecl)
        let descriptors = properties.map { property -> String in
            let extra = property.relationshipArguments.map { $0.isEmpty ? "" : ", " + $0 } ?? ""
            return "        .property(\(property.name.quotedLiteral), \\\(typeName).\(property.name)\(extra))"
        }
        let fields = properties.map { "\(access)let \($0.name): ManagedStorage._ReadOnlyFieldOf<\($0.type)>" }
        let parameters = (["objectID: ManagedStorage.StorageObjectID"] + properties.map { "\($0.name): ManagedStorage._ReadOnlyFieldOf<\($0.type)>" })
            .joined(separator: ", ")
        let assignments = (["self.objectID = objectID"] + properties.map { "self.\($0.name) = \($0.name)" })
            .joined(separator: "\n")
        let conversions = (["objectID: _$backing.permanentObjectID()"] + properties.map { "\($0.name): ManagedStorage._readOnlyValue(self.\($0.name))" })
            .joined(separator: ", ")
        var members: [DeclSyntax] = []
        if let originalName {
            members.append("\(raw: access)static var originalEntityName: String? { \(raw: originalName.quotedLiteral) }")
        }
        return members + [
            "\(raw: access)typealias ReadOnlyField = ManagedStorage.StorageObjectID",
            "\(raw: access)let _$backing: ManagedStorage.EntityBacking",
            "\(raw: access)init(_$backing: ManagedStorage.EntityBacking) { self._$backing = _$backing }",
            "\(raw: access)static var entityName: String { \(raw: entityName.quotedLiteral) }",
            """
            \(raw: access)static var _$properties: [ManagedStorage.StorageProperty<\(raw: typeName)>] {
                [
            \(raw: descriptors.joined(separator: ",\n"))
                ]
            }
            """,
            """
            /// A `Sendable` copy of a `\(raw: typeName)`'s values: to-one relationships as object IDs,
            /// to-many relationships as the copies of their objects.
            \(raw: access)struct ReadOnly: Sendable, Equatable {
                /// The object's permanent identifier.
                \(raw: access)let objectID: ManagedStorage.StorageObjectID
                \(raw: fields.joined(separator: "\n    "))

                \(raw: access)init(\(raw: parameters)) {
                    \(raw: assignments.replacingNewlines("\n        "))
                }
            }
            """,
            """
            /// A `Sendable` copy of the object's values, to hand out of an operation.
            \(raw: access)func toReadOnly() -> ReadOnly {
                ReadOnly(\(raw: conversions))
            }
            """,
        ]
    }
}

extension StorageEntityMacro: MemberAttributeMacro {
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingAttributesFor member: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
              classDecl.hasModifier(.final),
              let variable = member.as(VariableDeclSyntax.self),
              let name = variable.singleName else { return [] }
        let properties = storedProperties(classDecl)
        guard let index = properties.firstIndex(where: { $0.name == name }),
              variable.isStoredCandidate, variable.bindings.first?.initializer == nil else { return [] }
        return ["@_StorageProperty(\(raw: index))"]
    }
}

extension StorageEntityMacro: ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
              classDecl.hasModifier(.final) else { return [] }
        var extensions: [ExtensionDeclSyntax] = []
        if protocols.contains(where: { $0.trimmedDescription.hasSuffix("StorageEntity") }) {
            extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): ManagedStorage.StorageEntity {}"))
        }
        // An object belongs to one storage on one thread: the compiler rejects sending it anywhere.
        extensions.append(try ExtensionDeclSyntax("@available(*, unavailable, message: \"an entity belongs to its storage; send toReadOnly() or objectID instead\") extension \(type.trimmed): @unchecked Sendable {}"))
        return extensions
    }
}

/// `@_StorageProperty(i)`: the accessors that read and write slot `i` of the object's state.
public struct StoragePropertyMacro: AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard case .argumentList(let arguments)? = node.arguments,
              let index = arguments.first?.expression.as(IntegerLiteralExprSyntax.self)?.literal.text else { return [] }
        return [
            "get { _$backing.get(\(raw: index)) }",
            "set { _$backing.set(\(raw: index), newValue) }",
        ]
    }
}

/// `@Relationship`, `@Attribute` and `@Transient`: markers that expand to nothing; `@StorageEntity` reads them.
public struct StorageMarkerMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        []
    }
}

extension VariableDeclSyntax {
    /// A `var` that `@StorageEntity` stores: a plain stored one (not static, lazy or computed, no
    /// observers, one name) that is not `@Transient`.
    var isStoredCandidate: Bool {
        isPlainStoredVar && !hasAttribute("Transient")
    }
}

extension String {
    /// The string with each line break followed by `indent`.
    func replacingNewlines(_ indent: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: indent)
    }
}
