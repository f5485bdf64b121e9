/// The run state an observer that re-runs keeps under its lock (`GraphSubscription`, a tracking
/// scope): runs never overlap, and a change during a run is not lost, it makes the running call go
/// round again instead of waiting for it (which could deadlock when the run itself made the change).
struct RerunState {
    /// A run is under way.
    private(set) var isRunning = false
    private var pending = false

    /// At a change: `true` when the caller should run now; otherwise the change is noted for the
    /// run under way.
    mutating func shouldStart() -> Bool {
        if isRunning {
            pending = true
            return false
        }
        isRunning = true
        return true
    }

    /// Notes a change for the run under way.
    mutating func markPending() {
        pending = true
    }

    /// After a run: whether to run again (a change came meanwhile and the observer is not
    /// `stopped`); when not, the run is over.
    mutating func shouldRepeat(stopped: Bool) -> Bool {
        if pending && !stopped {
            pending = false
            return true
        }
        isRunning = false
        return false
    }
}
