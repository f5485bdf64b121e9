import SwiftDiagnostics
import SwiftSyntax

/// Everything `@GraphStored` and `@GraphComputed` can complain about.
enum GraphMacroDiagnostic: String, DiagnosticMessage {
    case notAVariable
    case letProperty
    case multipleBindings
    case missingType
    case storedNeedsValue
    case backedNeedsValue
    case computedHasValue
    case hasAccessors
    case staticProperty
    case weakOrUnowned
    case lazyProperty
    case noStorage
    case computedNotInstance

    var message: String {
        switch self {
        case .notAVariable: return "@GraphStored and @GraphComputed apply to a 'var' property"
        case .letProperty: return "a graph node property must be 'var': its value changes (the node itself is the generated 'let $name')"
        case .multipleBindings: return "declare one property per 'var' for a graph node"
        case .missingType: return "a graph node property needs a type annotation, e.g. 'var count: Int = 0'"
        case .storedNeedsValue: return "a static or top-level @GraphStored property needs an initial value, since no initializer can assign it; only an optional may omit it"
        case .backedNeedsValue: return "a suite-backed @GraphStored property needs an initial value: it is the default while the suite holds none; only an optional may omit it"
        case .computedHasValue: return "@GraphComputed has no initial value: set its rule in init with 'self.$name = .init { ... }'"
        case .hasAccessors: return "a graph node property cannot declare 'get' or 'set' (only 'willSet' and 'didSet'): the macro provides them"
        case .staticProperty: return "a graph node property cannot be 'class': make it 'static'"
        case .weakOrUnowned: return "a graph node property cannot be 'weak' or 'unowned': its node holds the value strongly; keep a weak or unowned reference as a plain property marked @GraphIgnored"
        case .lazyProperty: return "a graph node property cannot be 'lazy': its node is made with the instance; give it an initial value, or assign it in init"
        case .noStorage: return "an enum, an extension or a protocol cannot hold a graph node property's node: declare the property in the class, struct or actor itself, or make it 'static'"
        case .computedNotInstance: return "@GraphComputed applies to an instance property of a class, struct or actor: its node gets its rule in init"
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
