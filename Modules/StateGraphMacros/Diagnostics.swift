import SwiftDiagnostics
import SwiftSyntax

/// Everything `@GraphStored` and `@GraphComputed` can complain about.
enum GraphMacroDiagnostic: String, DiagnosticMessage {
    case notAVariable
    case letProperty
    case multipleBindings
    case missingType
    case storedNeedsValue
    case computedHasValue
    case hasAccessors
    case staticProperty

    var message: String {
        switch self {
        case .notAVariable: return "@GraphStored and @GraphComputed apply to a 'var' property"
        case .letProperty: return "a graph node property must be 'var': its value changes (the node itself is the generated 'let $name')"
        case .multipleBindings: return "declare one property per 'var' for a graph node"
        case .missingType: return "a graph node property needs a type annotation, e.g. 'var count: Int = 0'"
        case .storedNeedsValue: return "@GraphStored needs an initial value (the default for a suite-backed property); only an optional may omit it"
        case .computedHasValue: return "@GraphComputed has no initial value: set its rule in init with 'self.$name = .init { ... }'"
        case .hasAccessors: return "a graph node property cannot declare 'get' or 'set' (only 'willSet' and 'didSet'): the macro provides them"
        case .staticProperty: return "a graph node property cannot be 'class': make it 'static'"
        }
    }

    var severity: DiagnosticSeverity { .error }

    var diagnosticID: MessageID { MessageID(domain: "StateGraph", id: rawValue) }
}

/// A fix-it message.
struct GraphMacroFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "StateGraph", id: message) }
}
