import Foundation
import PlistCodec

extension NewValue {
    /// The property-list value this command-line value stands for.
    ///
    /// - Throws: `FileFailure` saying which text does not parse as its type.
    func plistValue() throws -> PlistValue {
        switch self {
        case .bool(let text):
            switch text.lowercased() {
            case "yes", "true", "1": return .bool(true)
            case "no", "false", "0": return .bool(false)
            default: throw FileFailure("'\(text)' is not a bool (YES, NO, true or false)")
            }
        case .integer(let text):
            guard let value = Int128(text) else { throw FileFailure("'\(text)' is not an integer") }
            return .integer(PlistInteger(value))
        case .float(let text):
            guard let value = Double(text) else { throw FileFailure("'\(text)' is not a float") }
            return .real(value)
        case .string(let text):
            return .string(text)
        case .date(let text):
            guard let date = PlistText.parseDate(text) else {
                throw FileFailure("'\(text)' is not a date (ISO 8601, such as 2024-01-31T12:00:00Z)")
            }
            return .date(date)
        case .data(let text):
            guard let data = Data(base64Encoded: text) else { throw FileFailure("'\(text)' is not base64 data") }
            return .data(data)
        case .xml(let text):
            // Read as the files this tool reads: dates in CoreFoundation's calendar.
            do { return try PlistValue(parsing: Data(text.utf8), options: PlistReadOptions(dates: .coreFoundation)) } catch {
                throw FileFailure("the -xml value is not a property list: \(error)")
            }
        case .json(let text):
            do { return try JSONPlistReader.read(text) } catch {
                throw FileFailure("the -json value is not usable: \(error)")
            }
        case .array: return .array([])
        case .dictionary: return .dictionary([:])
        }
    }
}
