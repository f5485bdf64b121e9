import Foundation
import PlistCodec

/// One parsed `plist` command line: what to do, to which files, with which options.
///
/// The grammar is plutil's: the first argument names the operation (`-lint` when it names none),
/// its operands follow it in order, and the other options and the files may come in any order after.
struct PlistCommand: Equatable {
    /// The operation, with its operands.
    enum Operation: Equatable {
        case help
        case lint
        case print
        case convert(OutputFormat)
        case insert(KeyPath, NewValue, append: Bool)
        case replace(KeyPath, NewValue)
        case remove(KeyPath)
        case extract(KeyPath, ExtractFormat, expect: ValueType?)
        case type(KeyPath, expect: ValueType?)
        case create(OutputFormat)
    }

    var operation: Operation = .lint
    /// `-s`: print nothing on success.
    var silent = false
    /// `-r`: indented JSON.
    var readableJSON = false
    /// `-n`: no newline after a raw value.
    var noNewline = false
    /// `-o path`: where to write the result; `-` is standard output.
    var outputPath: String?
    /// `-e ext`: write the result beside the input with this extension instead.
    var outputExtension: String?
    /// `-header` with `-convert objc` (accepted; the header is not written).
    var objcHeader = false
    /// `-strict` (ours; plutil has none): refuse what Foundation tolerates, as `PlistReadOptions.strict`.
    var strict = false
    /// The input files; `-` is standard input.
    var files: [String] = []
}

/// The formats `-convert` and `-create` write.
enum OutputFormat: String, Equatable, CaseIterable {
    case xml1, binary1, json, swift, objc

    /// The extension `-convert` gives a file it writes beside its input: plutil keeps the input's
    /// name for the property-list formats and uses the language's extension for source code.
    var sourceExtension: String? {
        switch self {
        case .swift: return "swift"
        case .objc: return "m"
        default: return nil
        }
    }
}

/// The formats `-extract` prints a value in.
enum ExtractFormat: String, Equatable {
    case xml1, binary1, json, raw
}

/// The value types `-type`, `-expect` and the `-insert` type flags name.
enum ValueType: String, Equatable, CaseIterable {
    case bool, integer, float, string, date, data, dictionary, array

    /// The type of `value`, as `-type` prints it (UIDs, which plutil does not name, print as `uid`).
    static func name(of value: PlistValue) -> String {
        switch value {
        case .bool: return "bool"
        case .integer: return "integer"
        case .real, .float: return "float"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .dictionary: return "dictionary"
        case .array: return "array"
        case .uid: return "uid"
        }
    }
}

/// The value `-insert` and `-replace` put at a key path, as given on the command line.
enum NewValue: Equatable {
    case bool(String), integer(String), float(String), string(String), date(String), data(String)
    case xml(String), json(String)
    case array, dictionary
}
