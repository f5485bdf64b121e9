import MacroSupport
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@PersistedModel`: adds the persistence and observation plumbing to a class, marks each
/// persisted property `@_PersistedProperty`, and adds the `PersistedModel` and `Observable` conformances.
public struct PersistedModelMacro {}

extension PersistedModelMacro: MemberMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let classDecl = validatedClass(declaration, node: node, in: context) else { return [] }
        if inheritsPersistedModel(classDecl, missingConformances: protocols) {
            let fixIt = FixIt(message: PersistedModelFixIt(message: "remove @PersistedModel"),
                              changes: [.replace(oldNode: Syntax(node), newNode: Syntax(AttributeSyntax(stringLiteral: "")))])
            context.diagnose(Diagnostic(node: node, message: PersistedModelDiagnostic.subclassOfPersistedModel, fixIts: [fixIt]))
            return []
        }
        let typeName = classDecl.name.trimmed.text
        let members = classDecl.memberBlock.members.compactMap { $0.decl.as(VariableDeclSyntax.self) }

        for member in members where member.isLet && !member.isStatic && !member.isIgnored {
            let fixIt = FixIt(message: PersistedModelFixIt(message: "change 'let' to 'var'"),
                              changes: [.replace(oldNode: Syntax(member.bindingSpecifier),
                                                 newNode: Syntax(TokenSyntax.keyword(.var, trailingTrivia: .space)))])
            context.diagnose(Diagnostic(node: member.bindingSpecifier, message: PersistedModelDiagnostic.letProperty, fixIts: [fixIt]))
        }

        for member in members where !member.isLet && !member.isStatic && !member.isIgnored && !member.isLazy {
            if member.bindings.count > 1 {
                context.diagnose(Diagnostic(node: member.bindingSpecifier, message: PersistedModelDiagnostic.multipleBindings))
            } else if member.isStored, member.bindings.first?.accessorBlock != nil {
                context.diagnose(Diagnostic(node: member.bindingSpecifier, message: PersistedModelDiagnostic.observedProperty))
            }
        }

        let documentName = storageName(in: members, in: context) ?? typeName
        let persisted = members.filter(\.isPersistable)
        let keys = ModelKeys(classDecl, persisted: persisted, typeName: typeName, diagnose: { context.diagnose($0) })
        var coded: [(member: VariableDeclSyntax, name: String, key: String, previous: [String])] = []
        for member in persisted {
            guard let name = member.singleIdentifier?.identifier.trimmed.text else { continue }
            coded.append((member, name, keys.key(for: name), keys.previousKeys(for: name, declared: member.previousKeys)))
        }
        let fields = coded.map { field in
            let previous = field.previous.map { "\"\($0.literalEscaped)\"" }.joined(separator: ", ")
            return "ModelPersistence.PersistedField(key: \"\(field.key.literalEscaped)\", previousKeys: [\(previous)], storage: \\\(typeName)._\(field.name), observed: \\\(typeName).\(field.name))"
        }
        let fieldList = fields.isEmpty ? "[]" : "[\n" + fields.map { "    " + $0 }.joined(separator: ",\n") + "\n]"
        // Validated: no `/`, `..` or NUL; quotes and backslashes are escaped for the literal.
        let escapedName = documentName.literalEscaped
        var coding: [DeclSyntax] = []
        if ModelCoding.canEncode(classDecl) {
            coding.append(ModelCoding.encodeMember(fields: coded.map { ($0.name, $0.key) }))
        }
        if ModelCoding.canDecode(classDecl) {
            coding.append(ModelCoding.decodeMember(classDecl, fields: coded))
            coding += ModelCoding.defaultMembers(typeName)
            // `init(from:)` is a designated initializer: the class would lose the `init()` Swift gives it.
            if ModelCoding.hasImplicitInitializer(classDecl) { coding.append("public init() {}") }
        }

        return [
            "public typealias _PersistedRoot = \(raw: typeName)",
            "public nonisolated final var _$persistedRoot: \(raw: typeName) { self }",
            "public static let _$persistedDocumentName: String = \"\(raw: escapedName)\"",
            "public static var _$persistedFields: [ModelPersistence.PersistedField<\(raw: typeName)>] { \(raw: fieldList) }",
            "public let _$persistence = ModelPersistence.PersistenceContext<\(raw: typeName)>()",
            "private let _$observationRegistrar = Observation.ObservationRegistrar()",
            """
            internal nonisolated func access<Member>(keyPath: KeyPath<\(raw: typeName), Member>) {
                _$observationRegistrar.access(self, keyPath: keyPath)
            }
            """,
            """
            public nonisolated func withMutation<Member, T>(keyPath: KeyPath<\(raw: typeName), Member>, _ mutation: () throws -> T) rethrows -> T {
                try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
            }
            """,
        ] + coding
    }

    /// Whether the class inherits its `PersistedModel` conformance from a persisted superclass.
    ///
    /// The macro sees syntax only, so it cannot tell a superclass from a protocol in `class C: B`. The
    /// compiler tells it which of the macro's conformances the class does not have yet: `PersistedModel`
    /// is missing from them unless a superclass already brings it (or the class names it itself).
    static func inheritsPersistedModel(_ classDecl: ClassDeclSyntax, missingConformances protocols: [TypeSyntax]) -> Bool {
        guard let inherited = classDecl.inheritanceClause?.inheritedTypes, !inherited.isEmpty else { return false }
        func isPersistedModel(_ name: String) -> Bool { name.split(separator: ".").last == "PersistedModel" }
        if protocols.contains(where: { isPersistedModel($0.trimmedDescription) }) { return false }
        return !inherited.contains { isPersistedModel($0.type.trimmedDescription) }
    }

    /// The class, if the declaration is a class without `@Observable`; diagnoses it otherwise.
    static func validatedClass(_ declaration: some DeclGroupSyntax, node: AttributeSyntax,
                               in context: some MacroExpansionContext) -> ClassDeclSyntax? {
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            let fixIt = FixIt(message: PersistedModelFixIt(message: "make it a class"),
                              changes: [.replace(oldNode: Syntax(structDecl.structKeyword),
                                                 newNode: Syntax(TokenSyntax(.keyword(.class), leadingTrivia: structDecl.structKeyword.leadingTrivia, trailingTrivia: .space, presence: .present)))])
            context.diagnose(Diagnostic(node: structDecl.structKeyword, message: PersistedModelDiagnostic.structNotClass, fixIts: [fixIt]))
            return nil
        }
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: PersistedModelDiagnostic.notAClass))
            return nil
        }
        // A non-final class is fine: the runtime protocol names the class through `_PersistedRoot`
        // rather than `Self`. A subclass inherits the conformance and is persisted as its superclass.
        if let attribute = classDecl.attribute(named: "Observable") {
            let fixIt = FixIt(message: PersistedModelFixIt(message: "remove @Observable"),
                              changes: [.replace(oldNode: Syntax(attribute), newNode: Syntax(AttributeSyntax(stringLiteral: "")))])
            context.diagnose(Diagnostic(node: attribute, message: PersistedModelDiagnostic.observableToo, fixIts: [fixIt]))
            return nil
        }
        return classDecl
    }

    /// The name given by `@StorageName static let storageName = "..."`, validated; `nil` when absent or invalid.
    static func storageName(in members: [VariableDeclSyntax], in context: some MacroExpansionContext) -> String? {
        // A misdeclared one (not `static let`) is diagnosed by `StorageNameMacro`; it names nothing.
        guard let member = members.first(where: { $0.hasAttribute("StorageName") }), member.isStatic, member.isLet else { return nil }
        guard let initializer = member.bindings.first?.initializer?.value,
              let literal = initializer.as(StringLiteralExprSyntax.self),
              let value = literal.representedLiteralValue else {
            let site: Syntax = member.bindings.first?.initializer.map { Syntax($0.value) } ?? Syntax(member.bindingSpecifier)
            context.diagnose(Diagnostic(node: site, message: PersistedModelDiagnostic.storageNameNotLiteral))
            return nil
        }
        if value.isEmpty || value.contains("/") || value.contains("..") || value.contains("\0") {
            context.diagnose(Diagnostic(node: literal, message: PersistedModelDiagnostic.storageNameInvalid))
            return nil
        }
        return value
    }
}

extension PersistedModelMacro: MemberAttributeMacro {
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingAttributesFor member: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AttributeSyntax] {
        // Only where the member macro adds the plumbing the accessors use (diagnosed there otherwise).
        guard declaration.is(ClassDeclSyntax.self),
              !declaration.attributes.contains(attributeNamed: "Observable"),
              let variable = member.as(VariableDeclSyntax.self) else { return [] }
        if variable.isPersistable, !variable.hasAttribute("_PersistedProperty"),
           let name = variable.singleIdentifier?.identifier.trimmed.text, let classDecl = declaration.as(ClassDeclSyntax.self) {
            // A `@ModelCodingKey` key goes to the setter, which names what it changed by the file's key.
            let persisted = classDecl.memberBlock.members.compactMap { $0.decl.as(VariableDeclSyntax.self) }.filter(\.isPersistable)
            let key = ModelKeys(classDecl, persisted: persisted, typeName: classDecl.name.trimmed.text).key(for: name)
            return key == name ? ["@_PersistedProperty"] : ["@_PersistedProperty(\"\(raw: key.literalEscaped)\")"]
        }
        // An ignored property stays observable, as in DocumentData (SwiftUI views bound to it update).
        if variable.isObservedIgnored, !variable.hasAttribute("_PersistedObserved") { return ["@_PersistedObserved"] }
        return []
    }
}

extension PersistedModelMacro: ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        // Only conformances the macro always adds may be declared: a conformance it declares and does not
        // add, on a class that has a subclass, crashes Swift 6.3's compiler. `Encodable` and `Migratable`
        // come with `PersistedModel`; `Decodable` is the user's one line (see `ModelCoding`).
        guard declaration.is(ClassDeclSyntax.self), !declaration.attributes.contains(attributeNamed: "Observable") else { return [] }
        let names = protocols.map { $0.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" }
        var conformances: [String] = []
        if names.contains("PersistedModel") { conformances.append("ModelPersistence.PersistedModel") }
        if names.contains("Observable") { conformances.append("Observation.Observable") }
        guard !conformances.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {}")]
    }
}
