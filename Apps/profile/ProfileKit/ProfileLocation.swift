import ArgumentParser
import CommandSupport
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

    /// Opens the profile in the chosen folder, runs `body` with it, and prints on `streams` every error
    /// the runtime reports meanwhile (through `PersistenceErrors`).
    ///
    /// - Throws: What `body` throws; `ExitCode.failure` when the runtime reported an error it did not
    ///   recover from (a failed write, an unreadable file). A corrupt file moved aside is only a warning.
    func withProfile<R>(_ streams: CommandStreams, _ body: (UserProfile) throws -> R) throws -> R {
        _ = ProfileErrorLog.routeReportedErrors
        let log = ProfileErrorLog(streams)
        let result = try ReportedErrors.$receiver.withValue({ error in
            if let error = error as? PersistenceError { log.record(error) }
        }) {
            try withLocation { try body(UserProfile()) }
        }
        if log.hasFailure { throw ExitCode.failure }
        return result
    }
}

/// Prints the errors `PersistenceErrors` reports for one command, as they come, and remembers whether
/// any was a failure.
final class ProfileErrorLog: Sendable {
    private let failures = Atomic<Int>(0)
    private let streams: CommandStreams

    init(_ streams: CommandStreams) {
        self.streams = streams
    }

    /// Installs, once per process, the `PersistenceErrors` handler that hands each error to the
    /// command whose task hit it (``ReportedErrors``), and to the handler it replaced otherwise.
    static let routeReportedErrors: Void = {
        let previous = PersistenceErrors.handler
        PersistenceErrors.handler = { error in
            if ReportedErrors.forward(error) { return }
            if let previous {
                previous(error)
            } else {
                FileHandle.standardError.write(Data("ModelPersistence: \(error)\n".utf8))
            }
        }
    }()

    /// Prints `error` as a warning (the runtime recovered) or an error.
    func record(_ error: PersistenceError) {
        let recovered: Bool
        switch error.cause {
        case .corruptFile(_, let movedTo): recovered = movedTo != nil
        case .undecodableValue: recovered = true
        case .file, .unencodableValue: recovered = false
        }
        if !recovered { failures.add(1, ordering: .relaxed) }
        streams.printError("profile: \(recovered ? "warning" : "error"): \(error)")
    }

    /// Whether an error the runtime did not recover from was reported.
    var hasFailure: Bool { failures.load(ordering: .relaxed) > 0 }
}
