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

    /// Writes the date's text into `out`; `false` when the date cannot be written (not finite, or before year 0).
    static func write(secondsSinceReferenceDate t: Double, julianBeforeGregorian: Bool, to out: ByteWriter) -> Bool {
        guard t.isFinite, abs(t) < 1e14 else { return false }
        let total = Int64(t.rounded(.down)) + referenceOffset
        let days = total >= 0 ? total / 86_400 : -((-total + 86_399) / 86_400)
        let secs = total - days * 86_400
        let jdn = days + unixEpochJDN
        let (y, m, d) = (julianBeforeGregorian && jdn < gregorianStartJDN) ? julian(jdn) : gregorian(days)
        guard y >= 0 else { return false }
        if y > 9999 { out.appendUTF8(String(y)) } else { digits(y, 4, out) }
        out.append(UInt8(ascii: "-")); digits(m, 2, out)
        out.append(UInt8(ascii: "-")); digits(d, 2, out)
        out.append(UInt8(ascii: "T")); digits(secs / 3600, 2, out)
        out.append(UInt8(ascii: ":")); digits(secs / 60 % 60, 2, out)
        out.append(UInt8(ascii: ":")); digits(secs % 60, 2, out)
        out.append(UInt8(ascii: "Z"))
        return true
    }

    private static func digits(_ v: Int64, _ width: Int, _ out: ByteWriter) {
        if width == 2 {
            out.append(UInt8(ascii: "0") + UInt8(v / 10 % 10))
            out.append(UInt8(ascii: "0") + UInt8(v % 10))
            return
        }
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = v
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
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
