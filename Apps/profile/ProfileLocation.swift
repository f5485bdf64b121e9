import ArgumentParser
import Foundation
import ModelPersistence
import Synchronization

/// `--folder`, shared by every subcommand: where `UserProfile.storage.plist` lives.
struct LocationOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Keep the profile in this folder (created if missing).",
                                            discussion: "Default: the application-support folder of the program "
                                                + "(~/.local/share/profile on Linux; $PERSISTENCE_TOOLKIT_ROOT/ApplicationSupport when that is set).",
                                            valueName: "path"),
            completion: .directory)
    var folder: String?

    /// The folder `--folder` names, resolved against the working directory; `nil` for the default.
    var folderURL: URL? {
        folder.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
    }

    /// Runs `body` with models stored in `--folder` (bound for this scope only, through
    /// `PersistenceLocation.$folder`), or in the default folder.
    func withLocation<R>(_ body: () throws -> R) throws -> R {
        try PersistenceLocation.$folder.withValue(folderURL) { try body() }
    }

    /// Opens the profile in the chosen folder, runs `body` with it, and prints every error the runtime
    /// reports meanwhile (through `PersistenceErrors`).
    ///
    /// - Throws: What `body` throws; `ExitCode.failure` when the runtime reported an error it did not
    ///   recover from (a failed write, an unreadable file). A corrupt file moved aside is only a warning.
    func withProfile<R>(_ body: (UserProfile) throws -> R) throws -> R {
        let reported = ReportedErrors()
        PersistenceErrors.handler = { error in reported.record(error) }
        defer { PersistenceErrors.handler = nil }
        let result = try withLocation { try body(UserProfile()) }
        if reported.hasFailure { throw ExitCode.failure }
        return result
    }
}

/// Prints the errors `PersistenceErrors` reports, as they come, and remembers whether any was a failure.
final class ReportedErrors: Sendable {
    private let failures = Atomic<Int>(0)

    /// Prints `error` to standard error as a warning (the runtime recovered) or an error.
    func record(_ error: PersistenceError) {
        let recovered: Bool
        switch error.cause {
        case .corruptFile(_, let movedTo): recovered = movedTo != nil
        case .undecodableValue: recovered = true
        case .file, .unencodableValue: recovered = false
        }
        if !recovered { failures.add(1, ordering: .relaxed) }
        let line = "profile: \(recovered ? "warning" : "error"): \(error)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Whether an error the runtime did not recover from was reported.
    var hasFailure: Bool { failures.load(ordering: .relaxed) > 0 }
}
