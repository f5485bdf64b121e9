import MacroSupport
import SwiftSyntax

/// The `Codable` conformance `@PersistedModel` writes for a model: `encode(to:)` and `init(from:)` with
/// the file's keys, so `PropertyListEncoder().encode(model)` gives the file's bytes and DocumentData's
/// `Model.default` can decode an instance.
enum ModelCoding {
    /// `encode(to:)` (`PersistedModel` refines `Encodable`) is generated unless the class writes its own
    /// or is isolated to a global actor (the requirement is nonisolated; the protocol's default, which
    /// goes through the fields, serves then).
    static func canEncode(_ classDecl: ClassDeclSyntax) -> Bool {
        !declares(classDecl, function: "encode", firstLabel: "to") && !isActorIsolated(classDecl)
    }

    /// `init(from:)` is generated for a class that does not write its own, is not isolated to a global
    /// actor, and whose other stored properties can all start without the file (an initial value, an
    /// optional `var`, or a type that starts empty). In a `final` class it is `required` (so
    /// `extension Model: Decodable {}` is all a user writes); in any other class it is a plain
    /// designated initializer, which binds no subclass to write it.
    static func canDecode(_ classDecl: ClassDeclSyntax) -> Bool {
        guard !declares(classDecl, initializerLabel: "from"), !isActorIsolated(classDecl) else { return false }
        return classDecl.memberBlock.members.allSatisfy { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic,
                  !variable.isPersistable, variable.isStored else { return true }
            if variable.bindings.count > 1 { return variable.bindings.allSatisfy { $0.initializer != nil } }
            return variable.hasInitializer || (!variable.isLet && variable.isOptional) || variable.startsEmpty
        }
    }

    /// `encode(to:)`: every persisted property under its key, in declaration order; a `nil` optional is left out.
    static func encodeMember(fields: [(name: String, key: String)]) -> DeclSyntax {
        guard !fields.isEmpty else {
            return """
            public func encode(to encoder: any Encoder) throws {
                _ = encoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)
            }
            """
        }
        let lines = fields.map { "    try container._encodePersisted(self.\($0.name), forKey: \"\($0.key.literalEscaped)\")" }
        return """
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)
        \(raw: lines.joined(separator: "\n"))
        }
        """
    }

    /// `init(from:)`: each persisted property from its key (or an earlier one); one without an initial
    /// value or `nil` to start from must be present. Other stored properties without an initial value
    /// start empty (`.init()`), as in DocumentData.
    static func decodeMember(_ classDecl: ClassDeclSyntax, fields: [(member: VariableDeclSyntax, name: String, key: String, previous: [String])]) -> DeclSyntax {
        var required: [String] = []
        var optional: [String] = []
        for field in fields {
            let previous = "[" + field.previous.map { "\"\($0.literalEscaped)\"" }.joined(separator: ", ") + "]"
            let key = "\"\(field.key.literalEscaped)\""
            if field.member.hasInitializer || field.member.isOptional {
                optional.append("    try container._decodePersisted(into: &self._\(field.name), key: \(key), previousKeys: \(previous))")
            } else if let type = field.member.declaredType {
                required.append("    self._\(field.name) = try container._decodeRequiredPersisted(\(type.trimmedDescription).self, key: \(key), previousKeys: \(previous))")
            }
        }
        var empty: [String] = []
        for member in classDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic, !variable.isPersistable,
                  variable.isStored, variable.bindings.count == 1, !variable.hasInitializer,
                  variable.isLet || !variable.isOptional, variable.startsEmpty,
                  let name = variable.singleIdentifier?.identifier.trimmed.text else { continue }
            empty.append("    self.\(name) = .init()")
        }
        let container = fields.isEmpty
            ? "    _ = try decoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)"
            : "    let container = try decoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)"
        let body = ([container] + required + empty + optional).joined(separator: "\n")
        let isFinal = classDecl.hasModifier(.final)
        return """
        public \(raw: isFinal ? "required " : "")init(from decoder: any Decoder) throws {
        \(raw: body)
        }
        """
    }

    /// DocumentData's `default` and its throwing form, for a class with `init(from:)`.
    static func defaultMembers(_ typeName: String) -> [DeclSyntax] {
        [
            """
            public static var `default`: \(raw: typeName) {
                ModelPersistence.PersistedModelDefault.instance(of: \(raw: typeName).self) { try \(raw: typeName)(from: $0) }
            }
            """,
            """
            public static func loadDefault() throws(ModelPersistence.PersistenceError) -> \(raw: typeName) {
                try ModelPersistence.PersistedModelDefault.load(\(raw: typeName).self) { try \(raw: typeName)(from: $0) }
            }
            """,
        ]
    }

    /// Whether Swift gives the class an `init()`: it declares no designated (not `convenience`)
    /// initializer, and every stored property has an initial value or is an optional `var`.
    static func hasImplicitInitializer(_ classDecl: ClassDeclSyntax) -> Bool {
        classDecl.memberBlock.members.allSatisfy { member in
            if let initializer = member.decl.as(InitializerDeclSyntax.self) {
                return initializer.hasModifier(.convenience)
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic, variable.isStored else { return true }
            return variable.bindings.allSatisfy { $0.initializer != nil } || (!variable.isLet && variable.isOptional)
        }
    }

    /// Whether the class declares a function `name` whose first argument label is `firstLabel`.
    static func declares(_ classDecl: ClassDeclSyntax, function name: String, firstLabel: String) -> Bool {
        classDecl.memberBlock.members.contains { member in
            guard let function = member.decl.as(FunctionDeclSyntax.self), function.name.text == name else { return false }
            return function.signature.parameterClause.parameters.first?.firstName.text == firstLabel
        }
    }

    /// Whether the class declares an initializer whose first argument label is `label`.
    static func declares(_ classDecl: ClassDeclSyntax, initializerLabel label: String) -> Bool {
        classDecl.memberBlock.members.contains { member in
            member.decl.as(InitializerDeclSyntax.self)?.signature.parameterClause.parameters.first?.firstName.text == label
        }
    }

    /// Whether the class carries a global actor (`@MainActor`, or an attribute named `…Actor`).
    static func isActorIsolated(_ classDecl: ClassDeclSyntax) -> Bool {
        classDecl.attributes.contains { element in
            guard case .attribute(let attribute) = element else { return false }
            return attribute.attributeName.trimmedDescription.hasSuffix("Actor")
        }
    }
}
