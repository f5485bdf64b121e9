import Foundation

/// Where `graph-probe` keeps its nodes' values (the probe links this module, and so do the tests):
/// the defaults suite `probe`, the file `<folder>/probe.plist`, in the folder a test names.
public enum GraphProbeSuite {
    /// The suite's name.
    public static let name = "probe"
    /// The suite's file name in its folder.
    public static let fileName = "probe.plist"
    /// The counter's key (`increment`, `set-loop`, `set-count`).
    public static let countKey = "count"
    /// The text's key (`set-text`).
    public static let textKey = "text"

    /// The key of `set-keys`' node `index` in process `process`: each process's keys are its own.
    public static func ownKey(process: Int, index: Int) -> String { "p\(process).k\(index)" }

    /// The suite's file in `folder`.
    public static func file(in folder: URL) -> URL { folder.appendingPathComponent(fileName) }
}
