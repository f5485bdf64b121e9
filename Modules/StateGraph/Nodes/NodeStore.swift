import Synchronization

/// A register of the program's live nodes, for debugging: enable it, make the nodes, and print the
/// graph as Graphviz `dot` text with ``graphViz()``.
///
/// ```swift
/// await NodeStore.shared.enable()
/// let model = CartModel()                       // its nodes register as they are made
/// _ = model.total                               // edges exist once rules have run
/// print(await NodeStore.shared.graphViz())      // paste into `dot -Tsvg`
/// ```
///
/// Registering costs a lock per node made, so it is off until ``enable()``; nodes made before then
/// are not listed. The register holds nodes weakly: a node that goes away leaves it.
public actor NodeStore {
    /// The program's register.
    public static let shared = NodeStore()

    /// Whether nodes register as they are made (read by every node's creation).
    static let registering = Atomic<Bool>(false)
    private static let entries = Mutex<[WeakCore]>([])

    private struct WeakCore: Sendable {
        weak var core: NodeCore?
    }

    /// Starts registering the nodes made from now on.
    public func enable() {
        Self.registering.store(true, ordering: .relaxed)
    }

    /// Stops registering and forgets every registered node.
    public func disable() {
        Self.registering.store(false, ordering: .relaxed)
        let dropped = Self.entries.withLock { entries -> [WeakCore] in
            defer { entries.removeAll() }
            return entries
        }
        withExtendedLifetime(dropped) {}
    }

    static func register(_ core: NodeCore) {
        entries.withLock { entries in
            // Prune the dead now and then, so the register stays as large as the live graph.
            if entries.count >= 64 && entries.count.nonzeroBitCount == 1 { entries.removeAll { $0.core == nil } }
            entries.append(WeakCore(core: core))
        }
    }

    /// The registered nodes still alive, as their names and locations.
    public var nodes: [NodeInfo] {
        Self.liveCores().map { NodeInfo(name: $0.name, sourceLocation: $0.location) }
    }

    private static func liveCores() -> [NodeCore] {
        entries.withLock { entries in
            entries.removeAll { $0.core == nil }
            return entries.compactMap(\.core)
        }
    }

    /// The live registered nodes and their edges as a Graphviz `dot` digraph: one line per node
    /// (`"name_file:line:column"`), then one per edge, from a node to a computed node that read it at
    /// its last evaluation; an edge into a node that is stale (it will compute again when read) is
    /// dashed.
    public func graphViz() -> String {
        let cores = Self.liveCores()
        var lines = ["digraph StateGraph {", ""]
        for core in cores { lines.append("\"\(Self.label(core))\"") }
        lines.append("")
        for core in cores {
            // Read in place under the lock, never retained: a dependent may be going away (its
            // `deinit` waits for this lock to leave the list).
            let dependents = core.withGraphLock { () -> [(label: String, stale: Bool)] in
                (0..<core.dependents.count).map { index in
                    core.dependents[index]._withUnsafeGuaranteedRef { dependent in
                        (Self.label(dependent), dependent.state.load(ordering: .acquiring) & ComputedCore.fresh == 0)
                    }
                }
            }
            for dependent in dependents {
                lines.append("\"\(Self.label(core))\" -> \"\(dependent.label)\"" + (dependent.stale ? " [style=dashed]" : ""))
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private static func label(_ core: NodeCore) -> String {
        "\(core.name)_\(core.location.text)"
    }
}
