import Foundation
import GRDB

/// SQL text helpers.
enum SQL {
    /// `name` as a quoted identifier.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `value` as an SQL literal (a column's `DEFAULT`).
    static func literal(_ value: StorageValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return "\(v)"
        case .real(let v):
            if v.isNaN { return "NULL" }
            if v.isInfinite { return v < 0 ? "-9e999" : "9e999" }
            let text = "\(v)"
            return text.contains(".") || text.contains("e") ? text : text + ".0"
        case .text(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let v): return "X'" + v.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
