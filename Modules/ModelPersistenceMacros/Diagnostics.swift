import SwiftDiagnostics
import SwiftSyntax

/// Everything `@PersistedModel` can complain about.
enum PersistedModelDiagnostic: String, DiagnosticMessage {
    case notAClass
    case structNotClass
    case subclassOfPersistedModel
    case observableToo
    case letProperty
    case storageNameNotLiteral
    case storageNameInvalid
    case storageNameNotStaticConstant
    case observedProperty
    case multipleBindings

    var message: String {
        switch self {
        case .notAClass: return "@PersistedModel can only be applied to a class"
        case .structNotClass: return "@PersistedModel can only be applied to a class, not a struct: a model is shared by reference and saved when its properties are set"
        case .subclassOfPersistedModel: return "@PersistedModel cannot be applied to a subclass of a persisted model: the subclass already keeps the properties it inherits in its superclass's file, and its own stored properties would not be persisted; remove @PersistedModel, or declare the properties in the persisted class"
        case .observableToo: return "@PersistedModel already makes the class Observable; remove @Observable"
        case .letProperty: return "'let' properties are not persisted; make it 'var' to persist it, or mark it @PersistedIgnored"
        case .storageNameNotLiteral: return "@StorageName needs one string literal without interpolation, e.g. static let storageName = \"Settings\""
        case .storageNameInvalid: return "@StorageName must be a file name: not empty, and without '/', '..' or NUL"
        case .storageNameNotStaticConstant: return "@StorageName only applies to a static constant naming the document, e.g. @StorageName static let storageName = \"Settings\"; on an instance property or a 'var' the name would be persisted as data, not used"
        case .observedProperty: return "a property with 'willSet' or 'didSet' is not persisted; observe the model with withObservationTracking instead, or mark it @PersistedIgnored"
        case .multipleBindings: return "only one property per 'var' is persisted; declare each property with its own 'var', or mark them @PersistedIgnored"
        }
    }

    var severity: DiagnosticSeverity {
        switch self {
        case .letProperty, .observedProperty, .multipleBindings: return .warning
        default: return .error
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "ModelPersistence", id: rawValue) }
}

/// The fix-its that go with them.
struct PersistedModelFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "ModelPersistence", id: message) }
}
