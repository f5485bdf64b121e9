import Foundation

/// A command-line mistake (or `--help`), with the text to print.
public struct OptionsError: Error {
    public var message: String

    public init(message: String) { self.message = message }
}

/// Parses `--name N` options (and `--folder PATH` when `folder` is given) into the caller's settings.
///
/// - Parameters:
///   - numbers: for each option, the smallest value allowed and where to store it.
/// - Returns: the mistake to report, or `nil` when every argument was understood.
public func parseOptions(_ arguments: [String], usage: String,
                         numbers: [String: (minimum: Int, assign: (Int) -> Void)],
                         folder: ((URL) -> Void)? = nil) -> OptionsError? {
    var rest = arguments[...]
    while let flag = rest.popFirst() {
        if flag == "--help" || flag == "-h" { return OptionsError(message: usage) }
        guard let text = rest.popFirst() else { return OptionsError(message: "\(flag) needs a value\n\(usage)") }
        if flag == "--folder", let folder {
            guard !text.isEmpty else { return OptionsError(message: "--folder needs a path\n\(usage)") }
            folder(URL(fileURLWithPath: text, isDirectory: true))
            continue
        }
        guard let number = Int(text) else {
            return OptionsError(message: "\(flag): '\(text)' is not a whole number\n\(usage)")
        }
        guard let option = numbers[flag] else { return OptionsError(message: "unknown option \(flag)\n\(usage)") }
        guard number >= option.minimum else { return OptionsError(message: "\(flag): \(number) is out of range\n\(usage)") }
        option.assign(number)
    }
    return nil
}

/// The parsed options, or (after printing the usage or the mistake) an exit: 0 for `--help`, 2 otherwise.
/// Also warns when the benchmark was built for debugging, where timings mean nothing.
public func optionsOrExit<Options>(_ result: Result<Options, OptionsError>, usage: String) -> Options {
    switch result {
    case .success(let options):
        #if DEBUG
        print("warning: this is a debug build; timings are meaningless. Build with -c release.")
        #endif
        return options
    case .failure(let error):
        print(error.message)
        exit(error.message == usage ? 0 : 2)
    }
}

/// The type of the file system `url` is on, from the longest matching mount point in `/proc/self/mounts`
/// (fsync costs depend on it: on tmpfs it costs nothing).
public func fileSystemName(_ url: URL) -> String {
    guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return "file system unknown" }
    let path = url.resolvingSymlinksInPath().path
    var best: (mountPoint: String, type: String)?
    for line in mounts.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count >= 3 else { continue }
        // Mount points escape spaces as \040; the temporary folders here have none.
        let mountPoint = String(fields[1]), type = String(fields[2])
        let contains = mountPoint == "/" || path == mountPoint || path.hasPrefix(mountPoint + "/")
        if contains, mountPoint.count >= (best?.mountPoint.count ?? -1) { best = (mountPoint, type) }
    }
    guard let best else { return "file system unknown" }
    return "file system \(best.type), mounted at \(best.mountPoint)" + (best.type == "tmpfs" ? ": fsync costs nothing here" : "")
}

/// A table as lines: the header, a rule, then the rows; the `leftAligned` columns (by default the
/// first) left-aligned, the others right-aligned, columns two spaces apart.
public func alignedLines(header: [String], rows: [[String]], leftAligned: Set<Int> = [0]) -> [String] {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    func line(_ row: [String]) -> String {
        row.enumerated().map { column, text in
            let pad = String(repeating: " ", count: widths[column] - text.count)
            return leftAligned.contains(column) ? text + pad : pad + text
        }.joined(separator: "  ")
    }
    return [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] + rows.map(line)
}

/// A fresh folder `<name>-<random>` under `parent` (the temporary folder by default), and what
/// `setUp` makes in it; on failure, prints why, removes the folder and exits with status 1.
public func benchFolder<Subjects>(_ name: String, under parent: URL?, _ setUp: (URL) throws -> Subjects) -> (URL, Subjects) {
    let root = (parent ?? FileManager.default.temporaryDirectory)
        .appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
    do {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return (root, try setUp(root))
    } catch {
        print("\(name): cannot set up \(root.path): \(error)")
        try? FileManager.default.removeItem(at: root)
        exit(1)
    }
}
