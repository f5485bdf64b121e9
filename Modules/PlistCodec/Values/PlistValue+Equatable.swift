import Foundation

// Equality is identity of what a file would hold: strings compare by exact Unicode scalars (not
// canonical equivalence), reals and dates by bit pattern (so NaN equals itself and -0.0 differs
// from 0.0). This is what round-trip tests and change detection need.
extension PlistValue {
    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a.bitPattern == b.bitPattern
        case let (.float(a), .float(b)): return a.bitPattern == b.bitPattern
        case let (.bool(a), .bool(b)): return a == b
        case let (.date(a), .date(b)):
            return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case let (.data(a), .data(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.dictionary(a), .dictionary(b)): return a == b
        case let (.uid(a), .uid(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let s):
            hasher.combine(0)
            for u in s.utf8 { hasher.combine(u) }
        case .integer(let i): hasher.combine(1); hasher.combine(i)
        case .real(let d): hasher.combine(2); hasher.combine(d.bitPattern)
        case .float(let f): hasher.combine(3); hasher.combine(f.bitPattern)
        case .bool(let b): hasher.combine(4); hasher.combine(b)
        case .date(let d): hasher.combine(5); hasher.combine(d.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let d): hasher.combine(6); hasher.combine(d)
        case .array(let a): hasher.combine(7); hasher.combine(a)
        case .dictionary(let d): hasher.combine(8); hasher.combine(d)
        case .uid(let u): hasher.combine(9); hasher.combine(u)
        }
    }
}
