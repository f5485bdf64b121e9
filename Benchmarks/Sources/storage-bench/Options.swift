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
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" { return .failure(OptionsError(message: usage)) }
            guard let text = rest.popFirst() else {
                return .failure(OptionsError(message: "\(flag) needs a value\n\(usage)"))
            }
            if flag == "--folder" {
                guard !text.isEmpty else { return .failure(OptionsError(message: "--folder needs a path\n\(usage)")) }
                options.folder = URL(fileURLWithPath: text, isDirectory: true)
                continue
            }
            guard let number = Int(text) else {
                return .failure(OptionsError(message: "\(flag): '\(text)' is not a whole number\n\(usage)"))
            }
            switch flag {
            case "--gets" where number >= 1: options.gets = number
            case "--sets" where number >= 1: options.sets = number
            case "--writes" where number >= 1: options.writes = number
            case "--runs" where number >= 1: options.runs = number
            case "--warmups" where number >= 0: options.warmups = number
            case "--gets", "--sets", "--writes", "--runs", "--warmups":
                return .failure(OptionsError(message: "\(flag): \(number) is out of range\n\(usage)"))
            default:
                return .failure(OptionsError(message: "unknown option \(flag)\n\(usage)"))
            }
        }
        return .success(options)
    }
}

/// A command-line mistake, with the text to print.
struct OptionsError: Error {
    var message: String
}
