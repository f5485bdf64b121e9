/// Where in the program a node was made: the file (`#fileID`), line and column of its creation.
public struct SourceLocation: Sendable, CustomStringConvertible {
    public let file: StaticString
    public let line: UInt
    public let column: UInt

    public init(file: StaticString, line: UInt, column: UInt) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, as compilers print locations.
    public var text: String { "\(file):\(line):\(column)" }

    public var description: String { text }
}
