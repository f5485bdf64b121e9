/// Where in the program a node was made: the file (`#fileID`), line and column of its creation.
///
/// Nodes record it from the `#fileID`, `#line` and `#column` defaults of their initializers, so a
/// node in a description or a cycle report says where it came from:
///
/// ```swift
/// let count = Stored(name: "count", wrappedValue: 0)
/// print(count.info.sourceLocation)   // "MyApp/Model.swift:12:17"
/// ```
public struct SourceLocation: Sendable, CustomStringConvertible {
    /// The file, as `#fileID` spells it (`Module/File.swift`).
    public let file: StaticString
    /// The line, from 1.
    public let line: UInt
    /// The column, from 1.
    public let column: UInt

    /// A location from its parts; nodes make their own from their initializers' defaults.
    ///
    /// - Parameters:
    ///   - file: The file, as `#fileID` spells it.
    ///   - line: The line, from 1.
    ///   - column: The column, from 1.
    public init(file: StaticString, line: UInt, column: UInt) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, as compilers print locations.
    public var text: String { "\(file):\(line):\(column)" }

    public var description: String { text }
}
