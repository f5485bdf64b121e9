import SwiftDiagnostics
import SwiftSyntax

/// A `@ModelCodingKey` or `@Migration` enum in a model: each case names a persisted property, and its
/// raw value (or, without one, its name) is a key of the file.
struct CodingKeyEnum {
    /// One case: the property it names, the key it gives, and where it is.
    struct Case {
        let name: String
        let key: String
        let node: EnumCaseElementSyntax
    }

    let declaration: EnumDeclSyntax
    let cases: [Case]

    /// The enum's cases, read leniently (a case whose raw value is not a plain string literal is left
    /// out: `problems` reports it).
    init(_ declaration: EnumDeclSyntax) {
        self.declaration = declaration
        var cases: [Case] = []
        for member in declaration.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                let name = element.name.trimmed.text.trimmingBackticks
                if let raw = element.rawValue {
                    guard let literal = raw.value.as(StringLiteralExprSyntax.self),
                          let key = literal.representedLiteralValue else { continue }
                    cases.append(Case(name: name, key: key, node: element))
                } else {
                    cases.append(Case(name: name, key: name, node: element))
                }
            }
        }
        self.cases = cases
    }

    /// The keys by property name.
    var keysByProperty: [String: String] {
        Dictionary(cases.map { ($0.name, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    /// What is wrong with the enum's shape, for the marker `macro` (`ModelCodingKey` or `Migration`):
    /// not a `CodingKey`, keys that are not strings, a raw value that is not a string literal, a case
    /// with associated values, two cases with one key.
    static func problems(_ declaration: EnumDeclSyntax, macro: String) -> [Diagnostic] {
        var found: [Diagnostic] = []
        let inherited = declaration.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        func last(_ name: String) -> String { name.split(separator: ".").last.map(String.init) ?? name }
        guard inherited.contains(where: { last($0) == "CodingKey" }) else {
            return [Diagnostic(node: declaration.name, message: CodingKeyEnumDiagnostic.notCodingKey(macro: macro))]
        }
        if let rawType = inherited.first, last(rawType) != "CodingKey", last(rawType) != "String" {
            found.append(Diagnostic(node: declaration.inheritanceClause!.inheritedTypes.first!.type,
                                    message: CodingKeyEnumDiagnostic.notStringKeys(macro: macro, rawType: rawType)))
            return found
        }
        var seen: [String: String] = [:]
        for member in declaration.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                if element.parameterClause != nil {
                    found.append(Diagnostic(node: element, message: CodingKeyEnumDiagnostic.associatedValues(macro: macro)))
                    continue
                }
                let name = element.name.trimmed.text.trimmingBackticks
                var key = name
                if let raw = element.rawValue {
                    guard let literal = raw.value.as(StringLiteralExprSyntax.self), let value = literal.representedLiteralValue else {
                        found.append(Diagnostic(node: raw.value, message: CodingKeyEnumDiagnostic.keyNotLiteral(macro: macro)))
                        continue
                    }
                    key = value
                }
                if let other = seen[key] {
                    found.append(Diagnostic(node: element, message: CodingKeyEnumDiagnostic.duplicateKey(macro: macro, key: key, other: other)))
                }
                seen[key] = name
            }
        }
        return found
    }
}

extension String {
    /// The identifier without the backticks that escape a keyword (`` `default` ``).
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}

/// What the coding-key enums of a model can be told.
enum CodingKeyEnumDiagnostic: DiagnosticMessage {
    case notAnEnum(macro: String)
    case notCodingKey(macro: String)
    case notStringKeys(macro: String, rawType: String)
    case keyNotLiteral(macro: String)
    case associatedValues(macro: String)
    case duplicateKey(macro: String, key: String, other: String)
    case unknownProperty(macro: String, name: String, type: String)
    case missingCase(property: String, enumName: String)
    case secondEnum(macro: String)

    var message: String {
        switch self {
        case .notAnEnum(let macro):
            return "@\(macro) can only be applied to an enum, e.g. @\(macro) enum CodingKeys: String, CodingKey { case name = \"NAME\" }"
        case .notCodingKey(let macro):
            return "@\(macro) needs an enum that conforms to CodingKey, e.g. enum CodingKeys: String, CodingKey"
        case .notStringKeys(let macro, let rawType):
            return "@\(macro) needs String raw values, not \(rawType): a property list's keys are strings (with \(rawType) raw values the file would use the cases' names)"
        case .keyNotLiteral(let macro):
            return "@\(macro)'s raw values must be string literals without interpolation: they are the file's keys"
        case .associatedValues(let macro):
            return "@\(macro)'s cases cannot have associated values: each case names a property"
        case .duplicateKey(let macro, let key, let other):
            return "@\(macro): the key \"\(key)\" is already used by case '\(other)'; each property needs a key of its own"
        case .unknownProperty(let macro, let name, let type):
            return "@\(macro): '\(name)' is not a persisted property of '\(type)'; each case names a persisted property (not a @PersistedIgnored one, nor @StorageName)"
        case .missingCase(let property, let enumName):
            return "the persisted property '\(property)' has no case in \(enumName); every persisted property needs one (add 'case \(property) = \"\(property)\"' to keep its key)"
        case .secondEnum(let macro):
            return "a model has at most one @\(macro) enum"
        }
    }

    var severity: DiagnosticSeverity { .error }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAnEnum: id = "notAnEnum"
        case .notCodingKey: id = "notCodingKey"
        case .notStringKeys: id = "notStringKeys"
        case .keyNotLiteral: id = "keyNotLiteral"
        case .associatedValues: id = "associatedValues"
        case .duplicateKey: id = "duplicateKey"
        case .unknownProperty: id = "unknownProperty"
        case .missingCase: id = "missingCase"
        case .secondEnum: id = "secondEnum"
        }
        return MessageID(domain: "ModelPersistence", id: id)
    }
}
