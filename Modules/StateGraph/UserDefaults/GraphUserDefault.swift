/// A property kept in a defaults suite and tracked as a graph node (swift-state-graph 0.26's
/// spelling): a property wrapper over a suite-backed ``Stored`` node.
///
/// ```swift
/// final class Settings {
///     @GraphUserDefault("theme") var theme: String = "light"
///     @GraphUserDefault("apiUrl", suiteName: "com.example.app") var apiUrl: String = "https://example.com"
///     @GraphComputed var isDarkMode: Bool
///
///     init() {
///         $isDarkMode = .init { [$theme] _ in $theme.wrappedValue == "dark" }
///     }
/// }
/// ```
///
/// Reads are tracked like any node's; a set writes the suite before it returns (an equal value
/// writes and tells nothing); another instance or process writing the key reaches this one. `$name`
/// is the wrapper itself, which reads and writes like the node (`$theme.wrappedValue`) and can be
/// captured by a computed node's rule. The suite's folder and the standard suite's name come from
/// ``GraphStorageLocation``, read when the wrapper is made.
///
/// The peer's `store: UserDefaults` parameter has no counterpart: name the suite with `suiteName:`,
/// or bind `GraphStorageLocation.$folder` (or `$storage`) around the model's creation.
@propertyWrapper
public final class GraphUserDefault<Value: UserDefaultsStorable>: Sendable {
    /// The node that holds the value.
    public let node: Stored<Value>

    /// A property kept under `key` of the standard suite, `wrappedValue` while the suite has none.
    public init(wrappedValue: Value, _ key: String,
                file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        node = Stored(name: key, backing: .userDefaults(key: key), defaultValue: wrappedValue, isEqual: { $0 == $1 },
                      location: SourceLocation(file: file, line: line, column: column))
    }

    /// A property kept under `key` of the suite `suiteName`.
    public init(wrappedValue: Value, _ key: String, suiteName: String,
                file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        node = Stored(name: key, backing: .userDefaults(suite: suiteName, key: key), defaultValue: wrappedValue,
                      isEqual: { $0 == $1 }, location: SourceLocation(file: file, line: line, column: column))
    }

    /// The value: read from the node (a tracked read), written through it to the suite.
    public var wrappedValue: Value {
        get { node.wrappedValue }
        set { node.wrappedValue = newValue }
    }

    /// The wrapper itself (`$name`), the same object for every use.
    public var projectedValue: GraphUserDefault<Value> { self }

    /// Calls `handler` after every set that changed the value, with the value before and the value
    /// set, on the setting thread (as swift-state-graph 0.26 does: an equal set calls nothing).
    public func onDidSet(_ handler: @escaping (_ oldValue: Value, _ newValue: Value) -> Void) {
        node.onDidSet { old, new in
            if old != new { handler(old, new) }
        }
    }

    /// The last error reading or writing the suite, or `nil`.
    public var storageError: GraphStorageError? { node.storageError }
}
