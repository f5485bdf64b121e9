import Foundation
import Synchronization

/// A property kept in a defaults suite and tracked as a graph node (swift-state-graph 0.26's
/// spelling): a property wrapper over a ``UserDefaultsStored`` node.
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
    public let node: UserDefaultsStored<Value>
    /// Guards `delivery`.
    private let deliveryLock = Mutex<Void>(())
    /// Held by a set through the wrapper until its `onDidSet` call returned, and while another writer's
    /// change is told: one at a time, in order. Recursive, for a handler that sets the value itself.
    private let telling = NSRecursiveLock()
    /// What `onDidSet` has told and is still to tell. Guarded by `deliveryLock`.
    nonisolated(unsafe) private var delivery: DidSetDelivery<Value>

    /// A property kept under `key` of the standard suite, `wrappedValue` while the suite has none.
    public init(wrappedValue: Value, _ key: String,
                file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        node = UserDefaultsStored(name: key, backing: .userDefaults(key: key), defaultValue: wrappedValue, isEqual: { $0 == $1 },
                      location: SourceLocation(file: file, line: line, column: column))
        delivery = DidSetDelivery(last: node.currentValue)
    }

    /// A property kept under `key` of the suite `suiteName`.
    public init(wrappedValue: Value, _ key: String, suiteName: String,
                file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        node = UserDefaultsStored(name: key, backing: .userDefaults(suite: suiteName, key: key), defaultValue: wrappedValue,
                      isEqual: { $0 == $1 }, location: SourceLocation(file: file, line: line, column: column))
        delivery = DidSetDelivery(last: node.currentValue)
    }

    /// The value: read from the node (a tracked read), written through it to the suite.
    public var wrappedValue: Value {
        get { node.wrappedValue }
        // A set and its `onDidSet` call happen under `telling`, so sets from several threads are each
        // told once, in order, on their own thread.
        set { telling.withLock { node.wrappedValue = newValue } }
    }

    /// The wrapper itself (`$name`), the same object for every use.
    public var projectedValue: GraphUserDefault<Value> { self }

    /// Calls `handler` after every change of the value, with the value before and the value after, as
    /// swift-state-graph 0.26 does: a set through this wrapper (on the setting thread, before the set
    /// returns; sets from several threads are told one after the other; an equal set calls nothing),
    /// and a change another writer made (another wrapper or `DefaultsSuite` on the
    /// same suite, or another process; on the thread that brought it in, moments later). Each change
    /// is told once, in the order the node took them, each call's old value being the previous call's
    /// new one; two writes another process makes before this one looks are one change. A handler
    /// that sets the value itself is told of that after it returns. One handler: a second call
    /// replaces the first. The wrapper is kept alive while a call for it runs.
    ///
    /// ```swift
    /// settings.$theme.onDidSet { old, new in print("theme: \(old) -> \(new)") }
    /// ```
    ///
    /// ``StoredNode/onDidSet(_:)`` on ``node`` sees this process's sets only (0.25's `Stored`).
    public func onDidSet(_ handler: @escaping (_ oldValue: Value, _ newValue: Value) -> Void) {
        let current = node.currentValue
        deliveryLock.withLock { _ in
            delivery.handler = handler
            if !delivery.watching { delivery.last = current }
            delivery.watching = true
        }
        // Weak: the node outlives the wrapper (the suite's watch holds it); a call in progress holds
        // the wrapper strongly until it returns.
        node.onDidSet { [weak self] _, _ in
            guard let self else { return }
            self.tell(self.node.currentValue)
        }
        // The node's value when the call is made, not the one the reload brought: a set through the
        // wrapper may have come in between (and been told), and the last call must end at the value.
        node.onOutsideChange { [weak self] _, _ in
            guard let self else { return }
            self.telling.withLock { self.tell(self.node.currentValue) }
        }
    }

    /// Tells the handler of `value` if it differs from the last value told. One thread tells at a
    /// time, in the order the values came; a value that comes while another thread (or the handler
    /// itself) is telling is queued, and told by that thread next.
    private func tell(_ value: Value) {
        var first = false
        deliveryLock.withLock { _ in
            delivery.queue.append(value)
            if !delivery.telling {
                delivery.telling = true
                first = true
            }
        }
        guard first else { return }
        while true {
            var call: (old: Value, new: Value, handler: ((Value, Value) -> Void)?)?
            deliveryLock.withLock { _ in
                while call == nil, !delivery.queue.isEmpty {
                    let next = delivery.queue.removeFirst()
                    if next != delivery.last {
                        call = (delivery.last, next, delivery.handler)
                        delivery.last = next
                    }
                }
                if call == nil { delivery.telling = false }
            }
            guard let call else { return }
            call.handler?(call.old, call.new)
        }
    }

    /// The last error reading or writing the suite, or `nil`.
    public var storageError: GraphStorageError? { node.storageError }
}

/// `GraphUserDefault.onDidSet`'s state: the handler, the last value told, the values still to tell,
/// and whether a thread is telling them.
struct DidSetDelivery<Value> {
    var handler: ((Value, Value) -> Void)?
    var last: Value
    var queue: [Value] = []
    var telling = false
    var watching = false
}
