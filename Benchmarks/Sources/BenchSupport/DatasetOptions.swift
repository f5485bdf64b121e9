import Foundation

/// The options of the benchmarks that run over `Dataset` (plist-bench, plist-tree-bench): how big the
/// dataset is, how many runs, and an optional profiling loop over one row.
public struct DatasetOptions: Sendable {
    /// How many records the dataset holds.
    public var records = 20_000
    /// Measured runs per case; the median is reported.
    public var runs = 7
    /// Unmeasured runs per case before measuring.
    public var warmups = 1
    /// When above 0, only PlistCodec's side of that row (1-4, in table order) runs, `runs` times,
    /// with no peers and no checks: a steady loop for a profiler.
    public var profileRow = 0

    /// The usage text, for `program`.
    public static func usage(_ program: String) -> String {
        """
        usage: \(program) [--records N] [--runs N] [--warmups N] [--profile-row N]
          --records N      records in the dataset (default 20000)
          --runs N         measured runs per case; the median is reported (default 7)
          --warmups N      unmeasured runs per case first (default 1)
          --profile-row N  run only PlistCodec's side of row N (1-4), --runs times, for a profiler
        """
    }

    /// Parses `arguments` (without the program name); returns a message for bad input.
    public static func parse(_ arguments: [String], program: String) -> Result<DatasetOptions, OptionsError> {
        var options = DatasetOptions()
        let numbers: [String: (minimum: Int, assign: (Int) -> Void)] = [
            "--records": (1, { options.records = $0 }),
            "--runs": (1, { options.runs = $0 }),
            "--warmups": (0, { options.warmups = $0 }),
            "--profile-row": (0, { options.profileRow = $0 }),
        ]
        if let error = parseOptions(arguments, usage: usage(program), numbers: numbers) { return .failure(error) }
        return .success(options)
    }

    /// Parses the process's arguments, or prints the problem and the usage and exits.
    public static func fromCommandLine(program: String) -> DatasetOptions {
        optionsOrExit(parse(Array(CommandLine.arguments.dropFirst()), program: program), usage: usage(program))
    }
}

extension Dataset {
    /// `records` as Foundation's `PropertyListEncoder` writes them: the peer's bytes, and the files
    /// both sides read. Exits if Foundation cannot encode them.
    public static func foundationEncoded(_ records: [Record], _ format: PropertyListSerialization.PropertyListFormat) -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        do { return try encoder.encode(records) } catch {
            print("Foundation cannot encode the dataset: \(error)")
            exit(1)
        }
    }
}
