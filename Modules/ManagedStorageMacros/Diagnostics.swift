import SwiftDiagnostics
import SwiftSyntax

/// Everything `@StorageEntity` can complain about.
enum StorageEntityDiagnostic: String, DiagnosticMessage {
    case notAClass
    case notFinal
    case letProperty
    case initialValue
    case multipleBindings
    case missingType
    case observers

    var message: String {
        switch self {
        case .notAClass: "@StorageEntity can only be applied to a class: an entity is an object its storage tracks"
        case .notFinal: "@StorageEntity requires a final class (entities are not subclassed; declare another entity instead)"
        case .letProperty: "'let' properties are not stored; make it 'var', or mark it @Transient"
        case .initialValue: "a stored property has no initial value (a new object starts at its type's default; set it after insertNewObject); remove it, or mark the property @Transient"
        case .multipleBindings: "declare each stored property with its own 'var'"
        case .missingType: "a stored property needs an explicit type"
        case .observers: "a stored property cannot have 'willSet' or 'didSet'; mark it @Transient, or observe changes through the store"
        }
    }

    var severity: DiagnosticSeverity { .error }
    var diagnosticID: MessageID { MessageID(domain: "ManagedStorage", id: rawValue) }
}

struct StorageEntityFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "ManagedStorage", id: message) }
}
