import StateGraph
import TestSupport

/// The nodes `graph-probe` works on, kept in the suite `GraphProbeSuite.name` of the folder bound
/// through `GraphStorageLocation.$folder` when the graph is made.
final class ProbeGraph: Sendable {
    @GraphStored(backed: .userDefaults(suite: "probe", key: "count"))
    var count: Int = 0

    @GraphStored(backed: .userDefaults(suite: "probe", key: "text"))
    var text: String = ""

    @GraphComputed var doubled: Int

    init() {
        self.$doubled = .init { [$count] _ in $count.wrappedValue * 2 }
    }
}
