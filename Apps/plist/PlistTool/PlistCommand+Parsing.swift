import Foundation

/// A command line `plist` cannot run: what was wrong with it.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}

extension PlistCommand {
    /// Parses `arguments` (without the program name) with plutil's grammar.
    ///
    /// Single-dash words are options; `-` alone is standard input; after `--` every word is a file.
    /// The operation must come first, as plutil requires; anything else first means `-lint`.
    ///
    /// - Throws: `UsageError` naming the option or operand that is missing or not understood.
    init(parsing arguments: [String]) throws {
        var words = arguments[...]
        if let first = words.first, let operation = try Self.operation(first, &words) {
            self.operation = operation
        }
        var filesOnly = false
        while let word = words.popFirst() {
            if filesOnly || word == "-" || !word.hasPrefix("-") {
                files.append(word)
                continue
            }
            switch word {
            case "--": filesOnly = true
            case "-s": silent = true
            case "-r": readableJSON = true
            case "-n": noNewline = true
            case "-header": objcHeader = true
            case "-strict": strict = true
            case "-o": outputPath = try Self.operand(&words, for: word, "Missing argument for -o.")
            case "-e": outputExtension = try Self.operand(&words, for: word, "Missing argument for -e.")
            case "-expect":
                let name = try Self.operand(&words, for: word, "Missing argument for -expect.")
                guard let type = ValueType(rawValue: name) else { throw UsageError("Unrecognized type for -expect: \(name)") }
                switch operation {
                case .extract(let path, let format, _): operation = .extract(path, format, expect: type)
                case .type(let path, _): operation = .type(path, expect: type)
                default: throw UsageError("-expect is only valid with -extract and -type.")
                }
            case "-help", "--help", "-h": operation = .help
            default:
                if Self.isOperation(word) { throw UsageError("Only one command option is allowed: \(word) comes after the first.") }
                throw UsageError("unrecognized option: \(word)")
            }
        }
        if operation != .help, files.isEmpty { throw UsageError("No files specified.") }
    }

    private static let operationWords: Set = [
        "-help", "--help", "-h", "-lint", "-p", "-convert", "-insert", "-replace", "-remove", "-extract", "-type", "-create",
    ]

    static func isOperation(_ word: String) -> Bool { operationWords.contains(word) }

    /// The operation `first` names, consuming it and its operands from `words`; nil when `first` is
    /// not an operation (the command is then `-lint`).
    private static func operation(_ first: String, _ words: inout ArraySlice<String>) throws -> Operation? {
        guard isOperation(first) else { return nil }
        words.removeFirst()
        switch first {
        case "-help", "--help", "-h": return .help
        case "-lint": return .lint
        case "-p": return .print
        case "-convert", "-create":
            let name = try operand(&words, for: first, "Missing format specifier for command.")
            guard let format = OutputFormat(rawValue: name) else { throw UsageError("Unknown format specifier: \(name)") }
            return first == "-convert" ? .convert(format) : .create(format)
        case "-insert", "-replace":
            let path = try KeyPath(operand(&words, for: first, "'\(first)' requires a key path, a type and a value."))
            let value = try newValue(&words, for: first)
            if first == "-replace" { return .replace(path, value) }
            let append = words.first == "-append"
            if append { words.removeFirst() }
            return .insert(path, value, append: append)
        case "-remove":
            return .remove(try KeyPath(operand(&words, for: first, "'-remove' requires a key path.")))
        case "-extract":
            let path = try KeyPath(operand(&words, for: first, "'-extract' requires a key path and a format."))
            var name = try operand(&words, for: first, "'-extract' requires a key path and a format.")
            if name == "-raw" { name = "raw" }
            guard let format = ExtractFormat(rawValue: name) else { throw UsageError("Unknown format specifier: \(name)") }
            return .extract(path, format, expect: nil)
        default: // "-type"
            return .type(try KeyPath(operand(&words, for: first, "'-type' requires a key path.")), expect: nil)
        }
    }

    /// The `-type [value]` operands of `-insert` and `-replace`.
    private static func newValue(_ words: inout ArraySlice<String>, for option: String) throws -> NewValue {
        let flag = try operand(&words, for: option, "'\(option)' requires a key path, a type and a value.")
        switch flag {
        case "-array": return .array
        case "-dictionary": return .dictionary
        default: break
        }
        let kinds: [String: (String) -> NewValue] = [
            "-bool": NewValue.bool, "-integer": NewValue.integer, "-float": NewValue.float, "-string": NewValue.string,
            "-date": NewValue.date, "-data": NewValue.data, "-xml": NewValue.xml, "-json": NewValue.json,
        ]
        guard let make = kinds[flag] else { throw UsageError("Unknown value type: \(flag)") }
        guard let text = words.popFirst() else { throw UsageError("'\(option)' with \(flag) requires a value.") }
        return make(text)
    }

    private static func operand(_ words: inout ArraySlice<String>, for option: String, _ message: String) throws -> String {
        guard let word = words.popFirst() else { throw UsageError(message) }
        return word
    }
}
