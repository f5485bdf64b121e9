import Foundation

// What surrounds the root element: the prolog (declaration, doctype, comments, whitespace) and
// what may follow the root.
extension XMLPlistLexer {
    /// Whether the input at `pos` is `<name` followed by whitespace, `>` or `/`.
    func isOpenTag(named packed: UInt64) -> Bool {
        guard pos < count, p[pos] == UInt8(ascii: "<") else { return false }
        var i = pos + 1
        while i < count, Self.isNameByte(p[i]) { i += 1 }
        let length = i - pos - 1
        return length > 0 && length <= 8 && Self.pack(p + pos + 1, length) == packed
    }

    /// Skips whitespace, comments and, in the prolog, `<?...?>` and `<!DOCTYPE ...>`.
    mutating func skipMisc(inProlog: Bool, allowInstructions: Bool = false) throws {
        while true {
            skipWhitespace()
            guard pos + 1 < count, p[pos] == UInt8(ascii: "<") else { return }
            let next = p[pos + 1]
            if next == UInt8(ascii: "!") {
                if startsWith("<!--") {
                    try skipComment()
                } else if inProlog, startsWith("<!DOCTYPE") {
                    try skipDoctype()
                } else {
                    return
                }
            } else if next == UInt8(ascii: "?"), inProlog || allowInstructions {
                try skipInstruction()
            } else {
                return
            }
        }
    }

    /// Skips `<?...?>` starting at `pos`.
    mutating func skipInstruction() throws {
        let start = pos
        var i = pos + 2
        while i + 1 < count {
            if p[i] == UInt8(ascii: "?"), p[i + 1] == UInt8(ascii: ">") { pos = i + 2; return }
            i += 1
        }
        throw error(.truncated, "unterminated processing instruction <?...", at: start)
    }

    /// Skips `<!DOCTYPE ...>`, including an internal subset in brackets and quoted literals.
    mutating func skipDoctype() throws {
        let start = pos
        var i = pos + 9
        var inSubset = false
        while i < count {
            let c = p[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                i += 1
                while i < count, p[i] != c { i += 1 }
            } else if c == UInt8(ascii: "[") {
                inSubset = true
            } else if c == UInt8(ascii: "]") {
                inSubset = false
            } else if c == UInt8(ascii: ">"), !inSubset {
                pos = i + 1
                return
            }
            i += 1
        }
        throw error(.truncated, "unterminated <!DOCTYPE", at: start)
    }
}
