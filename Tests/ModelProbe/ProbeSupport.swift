import Foundation
import ModelPersistence
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counts the `PersistenceError`s reported while the probe runs, printing each on stderr.
enum ProbeErrors {
    private static let reported = Atomic<Int>(0)

    /// How many errors were reported so far.
    static var count: Int { reported.load(ordering: .relaxed) }

    /// Routes every reported error here (from whichever thread hit it).
    static func install() {
        PersistenceErrors.handler = { error in
            reported.add(1, ordering: .relaxed)
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        }
    }
}

/// Prints `message` on stderr and exits 2.
func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("model-probe: \(message)\n".utf8))
    exit(2)
}

/// Prints `line` and flushes: the test reads lines while the probe still runs.
func say(_ line: String) {
    print(line)
    fflush(nil)   // all streams: `stdout` itself is not concurrency-safe to name
}

