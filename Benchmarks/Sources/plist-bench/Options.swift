import Foundation

/// Command-line options of `plist-bench`.
struct Options {
    /// How many records the dataset holds.
    var records = 20_000
    /// Measured runs per case; the median is reported.
    var runs = 7
    /// Unmeasured runs per case before measuring.
    var warmups = 1

    static let usage = """
        usage: plist-bench [--records N] [--runs N] [--warmups N]
          --records N   records in the dataset (default 20000)
          --runs N      measured runs per case; the median is reported (default 7)
          --warmups N   unmeasured runs per case first (default 1)
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
            guard let number = Int(text) else {
                return .failure(OptionsError(message: "\(flag): '\(text)' is not a whole number\n\(usage)"))
            }
            switch flag {
            case "--records" where number >= 1: options.records = number
            case "--runs" where number >= 1: options.runs = number
            case "--warmups" where number >= 0: options.warmups = number
            case "--records", "--runs", "--warmups":
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
