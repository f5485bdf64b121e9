import BenchSupport
import Foundation

/// Command-line options of `plist-bench`.
struct Options {
    /// How many records the dataset holds.
    var records = 20_000
    /// Measured runs per case; the median is reported.
    var runs = 7
    /// Unmeasured runs per case before measuring.
    var warmups = 1
    /// When above 0, only PlistCodec's side of that row (1-4, in table order) runs, `runs` times,
    /// with no checks: a steady loop for a profiler.
    var profileRow = 0

    static let usage = """
        usage: plist-bench [--records N] [--runs N] [--warmups N] [--profile-row N]
          --records N   records in the dataset (default 20000)
          --runs N      measured runs per case; the median is reported (default 7)
          --warmups N   unmeasured runs per case first (default 1)
          --profile-row N  run only PlistCodec's side of row N (1-4), --runs times, for a profiler
        """

    /// Parses `arguments` (without the program name); returns a message for bad input.
    static func parse(_ arguments: [String]) -> Result<Options, OptionsError> {
        var options = Options()
        let numbers: [String: (minimum: Int, assign: (Int) -> Void)] = [
            "--records": (1, { options.records = $0 }),
            "--runs": (1, { options.runs = $0 }),
            "--warmups": (0, { options.warmups = $0 }),
            "--profile-row": (0, { options.profileRow = $0 }),
        ]
        if let error = parseOptions(arguments, usage: usage, numbers: numbers) { return .failure(error) }
        return .success(options)
    }
}
