/// Text for the string literals a macro writes into its expansion.
extension String {
    /// The string as the inside of a Swift string literal: quotes and backslashes escaped, and line
    /// breaks, tabs and NUL written as escapes, so the literal's value is the string itself.
    ///
    /// ```swift
    /// "say \"hi\"".literalEscaped   // say \"hi\"
    /// ```
    package var literalEscaped: String {
        var result = ""
        for character in self {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default: result.append(character)
            }
        }
        return result
    }

    /// The string as a Swift string literal, quotes included: `"name"`.
    package var quotedLiteral: String {
        "\"" + literalEscaped + "\""
    }
}
