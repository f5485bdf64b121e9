/// Hands the errors a store reports through a process-wide handler to the command whose work caused
/// them.
///
/// ModelPersistence and StateGraph report what a setter cannot throw through one handler per process
/// (`PersistenceErrors.handler`, `GraphStorageErrors.handler`). Commands that run side by side in
/// one process (tests, the tour) must each see their own errors and none of another's, so an app
/// installs that handler once, forwarding to ``ReportedErrors/receiver`` (a task-local, so bound per
/// command) and to the handler it replaced everywhere else:
///
/// ```swift
/// let errors = ErrorLog()
/// try await ReportedErrors.$receiver.withValue({ errors.append($0) }) {
///     try await work()   // an error a setter reports on this task reaches `errors`
/// }
/// ```
///
/// A store reports on the thread that hit the error, so errors from the command's own calls reach it;
/// one hit on another thread (a file watcher's) goes to the handler that was there before.
public enum ReportedErrors {
    /// Receives the errors reported while the current task runs; `nil` outside a command.
    @TaskLocal public static var receiver: (@Sendable (any Error) -> Void)?

    /// Forwards `error` to the current task's receiver; returns false when there is none.
    public static func forward(_ error: any Error) -> Bool {
        guard let receiver else { return false }
        receiver(error)
        return true
    }
}
