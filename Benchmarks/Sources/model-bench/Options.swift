import BenchSupport
import Foundation

/// Command-line options of `model-bench`.
struct Options {
    /// In-memory gets per measured run (each is nanoseconds, so many are timed together).
    var gets = 1_000_000
    /// Decode-per-read gets per measured run (each reads and decodes the file).
    var decodes = 2_000
    /// Durable sets (and whole-file writes) per measured run.
    var sets = 100
    /// Sets inside the one `withBatch` of the batch row.
    var batch = 10_000
    /// Measured runs per case; the median is reported.
    var runs = 7
    /// Unmeasured runs per case before measuring.
    var warmups = 1
    /// Where to create the temporary folder; the system temporary folder when `nil`.
    var folder: URL?

    static let usage = """
        usage: model-bench [--gets N] [--decodes N] [--sets N] [--batch N] [--runs N] [--warmups N] [--folder PATH]
          --gets N      in-memory gets per measured run (default 1000000)
          --decodes N   decode-the-file-per-read gets per measured run (default 2000)
          --sets N      durable sets and .atomic writes per measured run (default 100)
          --batch N     sets inside the one withBatch of the batch row (default 10000)
          --runs N      measured runs per case; the median is reported (default 7)
          --warmups N   unmeasured runs per case first (default 1)
          --folder PATH create the temporary folder inside PATH (default: the system temp folder);
                        fsync costs depend on the file system, so bench on the one your app uses
        """

    /// Parses `arguments` (without the program name); returns a message for bad input.
    static func parse(_ arguments: [String]) -> Result<Options, OptionsError> {
        var options = Options()
        let numbers: [String: (minimum: Int, assign: (Int) -> Void)] = [
            "--gets": (1, { options.gets = $0 }),
            "--decodes": (1, { options.decodes = $0 }),
            "--sets": (1, { options.sets = $0 }),
            "--batch": (1, { options.batch = $0 }),
            "--runs": (1, { options.runs = $0 }),
            "--warmups": (0, { options.warmups = $0 }),
        ]
        if let error = parseOptions(arguments, usage: usage, numbers: numbers,
            folder: { options.folder = $0 }) { return .failure(error) }
        return .success(options)
    }
}
