import FileStorageKit
import Foundation

/// A computed node's rule read a node whose evaluation was already under way: a cycle.
///
/// A rule that reads its own node, directly (`a` reads `a`) or through others (`a` reads `b`, which
/// reads `a`), would wait for its own evaluation to end. The graph sees this instead, on one thread
/// or across threads (thread 1 evaluates `a` and reads `b` while thread 2 evaluates `b` and reads
/// `a`). A getter cannot throw, so the read that would close the cycle does not wait: it returns the
/// node's last value, and the cycle is reported to `GraphCycleErrors.handler` and kept in the node's
/// `cycleError`. A node that has no value yet has nothing to return: the program stops with this
/// error's description, as a `precondition` would.
///
/// ```swift
/// model.$total.cycleError?.nodes        // ["total", "tax", "total"]: total reads tax, which reads total
/// ```
public struct GraphCycleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The nodes in the order each one's rule reads the next, starting and ending with the node whose
    /// read got its last value: `["a", "b", "a"]`.
    public let nodes: [String]
    /// Whether the evaluations were on several threads, each waiting for the next.
    public let spansThreads: Bool

    /// Creates the error for a cycle through `nodes` (the first node repeated at the end).
    public init(nodes: [String], spansThreads: Bool) {
        self.nodes = nodes
        self.spansThreads = spansThreads
    }

    /// The cycle and what the read got, on one line.
    public var description: String { describe(outcome: "gave its last value to the read") }

    /// The cycle, then what became of the read: `"cycle a -> b -> a: a rule reads a while a is being
    /// computed; a <outcome>"`.
    func describe(outcome: String) -> String {
        let node = nodes.first ?? "?"
        return "cycle \(nodes.joined(separator: " -> "))\(spansThreads ? " (evaluated on several threads)" : ""): "
            + "a rule reads \(node) while \(node) is being computed; \(node) \(outcome)"
    }
}

/// Where computed nodes report the cycles their getters cannot throw.
///
/// ```swift
/// GraphCycleErrors.handler = { cycle in assertionFailure("\(cycle)") }   // fail fast in debug builds
/// ```
public enum GraphCycleErrors {
    /// The hub itself (FileStorageKit's `ErrorReports`, as every store's): also offers `stream()`.
    public static let reports = ErrorReports<GraphCycleError>(label: "StateGraph")

    /// Called with every cycle, on the thread whose read closed it. By default prints to standard error.
    public static var handler: @Sendable (GraphCycleError) -> Void {
        get { reports.handler ?? { reports.printLine($0) } }
        set { reports.handler = newValue }
    }

    static func report(_ error: GraphCycleError) {
        reports.report(error)
    }
}
