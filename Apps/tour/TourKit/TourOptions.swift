import Foundation

/// The tour's command-line options.
struct TourOptions {
    /// Where to create the data folder; the system temporary folder when `nil`.
    var dataRoot: URL?

    static let usage = """
        usage: tour [--data-root PATH]
          Runs every sample scenario end to end in a fresh data folder and prints what it did.
          --data-root PATH   create the data folder inside PATH (default: the system temp folder)
        """

    /// Parses the arguments after the program name; `nil` with a message for bad input or `--help`.
    static func parse(_ arguments: [String]) -> (options: TourOptions?, message: String?) {
        var options = TourOptions()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            switch flag {
            case "--help", "-h":
                return (nil, usage)
            case "--data-root":
                guard let path = rest.popFirst(), !path.isEmpty else {
                    return (nil, "--data-root needs a path\n\(usage)")
                }
                options.dataRoot = URL(fileURLWithPath: path, isDirectory: true)
            default:
                return (nil, "unknown argument \(flag)\n\(usage)")
            }
        }
        return (options, nil)
    }
}

/// Creates a new, uniquely named folder for this run of the tour inside `root`.
func makeDataFolder(in root: URL?) throws -> URL {
    let parent = root ?? FileManager.default.temporaryDirectory
    let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC") ?? .current,
                                            formatOptions: [.withYear, .withMonth, .withDay, .withTime])
    let unique = UUID().uuidString.prefix(8).lowercased()
    let folder = parent.appendingPathComponent("tour-\(stamp)-\(unique)", isDirectory: true)
    // withIntermediateDirectories creates a missing --data-root; the unique name keeps runs apart.
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
