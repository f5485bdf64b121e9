import Foundation
import PlistCodec

/// A failure processing one file, reported as `file: message`.
struct FileFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}

/// Runs one parsed command on each of its files.
struct ToolSession {
    let command: PlistCommand
    let io: ToolIO

    /// How a file is named in messages: as given, or `<stdin>` for `-`.
    func displayName(_ file: String) -> String { file == "-" ? "<stdin>" : file }

    /// Runs the command on `file`; reports a failure on standard error and returns false.
    func process(_ file: String) -> Bool {
        do {
            switch command.operation {
            case .help: return true
            case .lint: try lint(file)
            case .print: io.output(try parse(file).humanReadable())
            case .convert(let format): try convert(file, to: format)
            case .insert(let path, let value, let append): try edit(file, append ? .append : .insert, value, at: path)
            case .replace(let path, let value): try edit(file, .replace, value, at: path)
            case .remove(let path): try edit(file, .remove, nil, at: path)
            case .extract(let path, let format, let expect): try extract(file, path, format, expect)
            case .type(let path, let expect): try type(file, path, expect)
            case .create(let format): try create(file, format)
            }
            return true
        } catch let failure as LookupFailure {
            io.error("\(failure)\n")
        } catch {
            io.error("\(displayName(file)): \(error)\n")
        }
        return false
    }

    // MARK: Reading

    /// The bytes of `file` (memory-mapped, so a large file is not copied into the heap).
    func read(_ file: String) throws -> Data {
        if file == "-" { return io.standardInput }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)
        } catch {
            throw FileFailure("file does not exist or is not readable or is not a regular file")
        }
    }

    /// How files are read: dates as CoreFoundation reads them (this tool writes CoreFoundation's
    /// text, so what it writes it reads back to the second), and `-strict` when given.
    var readOptions: PlistReadOptions { PlistReadOptions(dates: .coreFoundation, strict: command.strict) }

    func parse(_ file: String) throws -> PlistValue {
        try PlistValue(parsing: read(file), options: readOptions)
    }

    // MARK: Operations

    func lint(_ file: String) throws {
        try PlistStreaming.validate(read(file), options: readOptions)
        if !command.silent { io.output("\(displayName(file)): OK\n") }
    }

    func convert(_ file: String, to format: OutputFormat) throws {
        let data = try read(file)
        let destination = convertDestination(file, format)
        if format == .xml1, PlistFormat.detect(data) == .binary {
            // Straight from the binary object table, in chunks: no tree, whatever the file's size.
            try destination.write { emit in
                try PlistStreaming.writeXML(fromBinary: data, mode: .coreFoundation, options: readOptions, emit: emit)
            }
            return
        }
        if format == .binary1, PlistFormat.detect(data) == .xml {
            // Element by element into a compact object table: no tree of a long root array.
            try destination.write { emit in
                try PlistStreaming.writeBinary(fromXML: data, mode: .coreFoundation, options: readOptions, emit: emit)
            }
            return
        }
        let value = try PlistValue(parsing: data, options: readOptions)
        try destination.write(encode(value, as: format, sourceName: (file == "-" ? "stdin" : file)))
    }

    func encode(_ value: PlistValue, as format: OutputFormat, sourceName: String) throws -> Data {
        switch format {
        case .xml1: return try value.serialized(as: .xml, mode: .coreFoundation)
        case .binary1: return try value.serialized(as: .binary, mode: .coreFoundation)
        case .json: return try JSONPlistWriter(readable: command.readableJSON, fragments: false).write(value)
        case .swift: return try SourceLiteralWriter(language: .swift, sourceName: (sourceName as NSString).lastPathComponent).write(value)
        case .objc: return try SourceLiteralWriter(language: .objc, sourceName: (sourceName as NSString).lastPathComponent).write(value)
        }
    }

    /// Where `-convert` writes: `-o`, standard output for standard input, the input with `-e`'s
    /// extension (or the language's for source code), or the input itself.
    func convertDestination(_ file: String, _ format: OutputFormat) -> OutputDestination {
        if let path = command.outputPath { return OutputDestination(path, io: io) }
        if file == "-" { return OutputDestination("-", io: io) }
        if let ext = command.outputExtension ?? format.sourceExtension {
            let stem = (file as NSString).deletingPathExtension
            return OutputDestination(stem + "." + ext, io: io)
        }
        return OutputDestination(file, io: io)
    }

    func edit(_ file: String, _ edit: PlistValue.Edit, _ newValue: NewValue?, at path: KeyPath) throws {
        let data = try read(file)
        var value = try PlistValue(parsing: data, options: readOptions)
        let replacement = try newValue.map { try $0.plistValue() }
        do {
            try value.apply(edit, replacement, at: path)
        } catch let error as KeyPathError {
            throw FileFailure("Could not modify plist, error: \(error)")
        }
        // Written back in the file's own format; OpenStep text, which cannot be written, becomes XML.
        let format: PlistFormat = PlistFormat.detect(data) == .binary ? .binary : .xml
        let destination = OutputDestination(command.outputPath ?? file, io: io)
        try destination.write(value.serialized(as: format, mode: .coreFoundation))
    }

    func extract(_ file: String, _ path: KeyPath, _ format: ExtractFormat, _ expect: ValueType?) throws {
        let value = try lookUp(file, path, expect)
        let bytes: Data
        switch format {
        case .xml1: bytes = try value.serialized(as: .xml, mode: .coreFoundation)
        case .binary1: bytes = try value.serialized(as: .binary, mode: .coreFoundation)
        case .json: bytes = try JSONPlistWriter(readable: command.readableJSON, fragments: true).write(value)
        case .raw: bytes = Data((rawText(value) + (command.noNewline ? "" : "\n")).utf8)
        }
        try OutputDestination(command.outputPath ?? "-", io: io).write(bytes)
    }

    func type(_ file: String, _ path: KeyPath, _ expect: ValueType?) throws {
        let value = try lookUp(file, path, expect)
        io.output(ValueType.name(of: value) + (command.noNewline ? "" : "\n"))
    }

    func create(_ file: String, _ format: OutputFormat) throws {
        try OutputDestination(file, io: io).write(encode(.dictionary([:]), as: format, sourceName: file == "-" ? "stdin" : file))
    }

    /// The value at `path`, checked against `expect`.
    private func lookUp(_ file: String, _ path: KeyPath, _ expect: ValueType?) throws -> PlistValue {
        guard let value = try parse(file).value(at: path) else {
            throw LookupFailure(description: "No value at that key path or invalid key path: \(path)")
        }
        if let expect, ValueType.name(of: value) != expect.rawValue {
            throw LookupFailure(description: "Value at [\(path)] expected to be \(expect.rawValue) but is \(ValueType.name(of: value))")
        }
        return value
    }

    /// `-extract ... raw`: the value without any encapsulation.
    func rawText(_ value: PlistValue) -> String {
        switch value {
        case .bool(let bool): return bool ? "true" : "false"
        case .integer(let integer): return integer.description
        case .real(let double): return PlistText.number(double)
        case .float(let float): return PlistText.number(Double(float))
        case .string(let string): return string
        case .date(let date): return PlistText.rfc3339(date)
        case .data(let data): return data.base64EncodedString()
        case .dictionary(let dictionary): return dictionary.sortedForOutput().map(\.key).joined(separator: "\n")
        case .array(let items): return String(items.count)
        case .uid(let uid): return String(uid)
        }
    }
}

/// A key path that names nothing, or a value of the wrong type: printed without the file name, as
/// plutil prints it.
struct LookupFailure: Error, CustomStringConvertible {
    var description: String
}
