import Foundation

/// `YYYY-MM-DDTHH:MM:SSZ` for XML `<date>` elements, with fractions truncated toward minus infinity.
///
/// `PropertyListEncoder` formats through an ISO 8601 calendar that switches to the Julian calendar
/// before 1582-10-15; CoreFoundation uses the proleptic Gregorian calendar throughout.
enum XMLDateFormat {
    /// Seconds between 1970-01-01 and 2001-01-01.
    static let referenceOffset: Int64 = 978_307_200
    /// Julian day number of 1970-01-01.
    static let unixEpochJDN: Int64 = 2_440_588
    /// Julian day number of 1582-10-15, the first Gregorian day.
    static let gregorianStartJDN: Int64 = 2_299_161

    /// The most bytes a date's text takes: a year of up to 7 digits (`abs(t) < 1e14` seconds).
    static let maxLength = 23

    /// Writes the date's text into `out`; `false` when the date cannot be written (not finite, or before year 0).
    static func write(secondsSinceReferenceDate t: Double, julianBeforeGregorian: Bool, to out: ByteWriter) -> Bool {
        var written = true
        out.withUnsafeSpace(maxLength) { p in
            guard let n = write(secondsSinceReferenceDate: t, julianBeforeGregorian: julianBeforeGregorian, to: p) else {
                written = false
                return 0
            }
            return n
        }
        return written
    }

    /// Writes the date's text at `p`, which has room for `maxLength` bytes; returns how many it
    /// wrote, or `nil` when the date cannot be written (not finite, or before year 0).
    @inline(__always)
    static func write(secondsSinceReferenceDate t: Double, julianBeforeGregorian: Bool, to p: UnsafeMutablePointer<UInt8>) -> Int? {
        guard t.isFinite, abs(t) < 1e14 else { return nil }
        let total = Int64(t.rounded(.down)) + referenceOffset
        let days = total >= 0 ? total / 86_400 : -((-total + 86_399) / 86_400)
        let secs = total - days * 86_400
        let jdn = days + unixEpochJDN
        let (y, m, d) = (julianBeforeGregorian && jdn < gregorianStartJDN) ? julian(jdn) : gregorian(days)
        guard y >= 0 else { return nil }
        // Four digits, zero-padded, up to 9999; beyond, as many as the year has.
        var width = 4
        var limit: Int64 = 10_000
        while y >= limit { width += 1; limit *= 10 }
        var rest = y
        for i in stride(from: width - 1, through: 0, by: -1) {
            p[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        var o = width
        func two(_ separator: UInt8, _ v: Int64) {
            p[o] = separator
            p[o + 1] = UInt8(ascii: "0") + UInt8(v / 10 % 10)
            p[o + 2] = UInt8(ascii: "0") + UInt8(v % 10)
            o += 3
        }
        two(UInt8(ascii: "-"), m)
        two(UInt8(ascii: "-"), d)
        two(UInt8(ascii: "T"), secs / 3600)
        two(UInt8(ascii: ":"), secs / 60 % 60)
        two(UInt8(ascii: ":"), secs % 60)
        p[o] = UInt8(ascii: "Z")
        return o + 1
    }

    /// Civil date from days since 1970-01-01 in the proleptic Gregorian calendar.
    static func gregorian(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Civil date from a Julian day number in the Julian calendar.
    static func julian(_ jdn: Int64) -> (Int64, Int64, Int64) {
        let c = jdn + 32_082
        let d = (4 * c + 3) / 1461
        let e = c - 1461 * d / 4
        let m = (5 * e + 2) / 153
        return (d - 4800 + m / 10, m + 3 - 12 * (m / 10), e - (153 * m + 2) / 5 + 1)
    }

    /// Days since 1970-01-01 for a civil date, inverse of `gregorian`/`julian`.
    static func days(year y: Int64, month m: Int64, day d: Int64, julianBeforeGregorian: Bool) -> Int64 {
        let g = gregorianDays(y, m, d)
        guard julianBeforeGregorian else { return g }
        if g + unixEpochJDN >= gregorianStartJDN { return g }
        // Julian calendar to JDN.
        let a = (14 - m) / 12
        let yy = y + 4800 - a
        let mm = m + 12 * a - 3
        let jdn = d + (153 * mm + 2) / 5 + 365 * yy + yy / 4 - 32_083
        return jdn - unixEpochJDN
    }

    private static func gregorianDays(_ year: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
