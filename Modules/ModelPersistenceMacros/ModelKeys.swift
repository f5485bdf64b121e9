import MacroSupport
import SwiftDiagnostics
import SwiftSyntax

/// The file keys of a model's persisted properties: each property's name, or the raw value its
/// `@ModelCodingKey` enum gives it, and the earlier keys its `@Migration` enum lists.
struct ModelKeys {
    private(set) var current: [String: String] = [:]
    private(set) var old: [String: [String]] = [:]
    /// Whether the class declares a (well-formed) `@Migration` enum.
    private(set) var hasMigration = false
    /// The `@ModelCodingKey` enum's name, when there is one.
    private(set) var codingKeysName: String?

    /// Reads the enums of `classDecl`. With `diagnose`, reports cases that name no persisted property,
    /// persisted properties missing from the `@ModelCodingKey` enum, and a second enum of a kind. An
    /// enum whose shape is wrong is skipped here (its own marker macro reports it).
    init(_ classDecl: ClassDeclSyntax, persisted: [VariableDeclSyntax], typeName: String,
         diagnose: ((Diagnostic) -> Void)? = nil) {
        let names = persisted.compactMap { $0.singleIdentifier?.identifier.trimmed.text }
        let enums = classDecl.memberBlock.members.compactMap { $0.decl.as(EnumDeclSyntax.self) }
        var sawCodingKeys = false
        for enumDecl in enums where enumDecl.hasAttribute("ModelCodingKey") {
            if sawCodingKeys {
                diagnose?(Diagnostic(node: enumDecl.name, message: CodingKeyEnumDiagnostic.secondEnum(macro: "ModelCodingKey")))
                continue
            }
            sawCodingKeys = true
            guard CodingKeyEnum.problems(enumDecl, macro: "ModelCodingKey").isEmpty else { continue }
            let keys = CodingKeyEnum(enumDecl)
            codingKeysName = enumDecl.name.trimmed.text
            for entry in keys.cases where !names.contains(entry.name) {
                diagnose?(Diagnostic(node: entry.node, message: CodingKeyEnumDiagnostic.unknownProperty(
                    macro: "ModelCodingKey", name: entry.name, type: typeName)))
            }
            let byProperty = keys.keysByProperty
            for member in persisted {
                guard let identifier = member.singleIdentifier?.identifier else { continue }
                let name = identifier.trimmed.text
                if let key = byProperty[name] {
                    current[name] = key
                } else {
                    diagnose?(Diagnostic(node: identifier, message: CodingKeyEnumDiagnostic.missingCase(
                        property: name, enumName: enumDecl.name.trimmed.text)))
                }
            }
        }
        var sawMigration = false
        for enumDecl in enums where enumDecl.hasAttribute("Migration") {
            if sawMigration {
                diagnose?(Diagnostic(node: enumDecl.name, message: CodingKeyEnumDiagnostic.secondEnum(macro: "Migration")))
                continue
            }
            sawMigration = true
            guard CodingKeyEnum.problems(enumDecl, macro: "Migration").isEmpty else { continue }
            hasMigration = true
            for entry in CodingKeyEnum(enumDecl).cases {
                guard names.contains(entry.name) else {
                    diagnose?(Diagnostic(node: entry.node, message: CodingKeyEnumDiagnostic.unknownProperty(
                        macro: "Migration", name: entry.name, type: typeName)))
                    continue
                }
                if entry.key != key(for: entry.name) { old[entry.name, default: []].append(entry.key) }
            }
        }
    }

    /// The file key of the property `name`.
    func key(for name: String) -> String { current[name] ?? name }

    /// The earlier keys of the property `name`: its `@Migration` key, then its `@PreviousKeys`.
    func previousKeys(for name: String, declared: [String]) -> [String] {
        var keys = old[name] ?? []
        for key in declared where !keys.contains(key) && key != self.key(for: name) { keys.append(key) }
        return keys
    }
}
