import BenchSupport
import Foundation

/// Command-line options of `storage-bench`.
struct Options {
    /// Gets per measured run (each get is tens of nanoseconds, so many are timed together).
    var gets = 200_000
    /// Sets per measured run (each is a durable write).
    var sets = 100
    /// Whole-file writes per measured run, for each size.
    var writes = 40
    /// Measured runs per case; the median is reported.
    var runs = 5
    /// Unmeasured runs per case before measuring.
    var warmups = 1
    /// Where to create the temporary folder; the system temporary folder when `nil`.
    var folder: URL?

    static let usage = """
        usage: storage-bench [--gets N] [--sets N] [--writes N] [--runs N] [--warmups N] [--folder PATH]
          --gets N      gets per measured run (default 200000)
          --sets N      sets per measured run (default 100)
          --writes N    whole-file writes per measured run and size (default 40)
          --runs N      measured runs per case; the median is reported (default 5)
          --warmups N   unmeasured runs per case first (default 1)
          --folder PATH create the temporary folder inside PATH (default: the system temp folder);
                        fsync costs depend on the file system, so bench on the one your app uses
        """

    /// Parses `arguments` (without the program name); returns a message for bad input.
    static func parse(_ arguments: [String]) -> Result<Options, OptionsError> {
        var options = Options()
        let numbers: [String: (minimum: Int, assign: (Int) -> Void)] = [
            "--gets": (1, { options.gets = $0 }),
            "--sets": (1, { options.sets = $0 }),
            "--writes": (1, { options.writes = $0 }),
            "--runs": (1, { options.runs = $0 }),
            "--warmups": (0, { options.warmups = $0 }),
        ]
        if let error = parseOptions(arguments, usage: usage, numbers: numbers,
            folder: { options.folder = $0 }) { return .failure(error) }
        return .success(options)
    }
}
