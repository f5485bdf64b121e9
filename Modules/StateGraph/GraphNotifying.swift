/// Something with observers to notify once a change has spread through the graph.
@usableFromInline
protocol GraphNotifying: AnyObject {
    /// Tells this thing's observers (Observation, graph tracking) that its value changed.
    func notifyObservers()
}
