import Foundation

/// Parses `<date>` text exactly as `Foundation.PropertyListDecoder` (swift-foundation) does.
///
/// The text is `YYYY-MM-DDTHH:MM:SSZ`, the year any number of digits (an optional leading `-` is
/// read but, as in Foundation, ignored unless the year is past 506714), the other fields exactly two
/// digits, no surrounding whitespace. Fields out of range (month 13, February 30, hour 24, second 60)
/// carry over as in Foundation (`2020-13-01` is 2021-01-01), or are refused by strict reading.
/// Every date this accepts gives Foundation's `Date`.
///
/// Foundation resolves the fields with its ISO 8601 calendar in UTC, which is the Gregorian calendar
/// from 1582-10-15 and the Julian calendar before (its own writer makes the same choice, so dates
/// round-trip). Years past 506714 fall back to a proleptic Gregorian computation, as Foundation's do.
/// The arithmetic here reproduces both paths, so the same text gives the same `Date` bit for bit.
enum XMLPlistDate {
    /// The Julian day number of 1582-10-15, the first Gregorian day.
    static let julianCutoverDay = 2_299_161
    /// The Julian day number of 2001-01-01 (the reference date).
    static let referenceJulianDay = 2_451_911
    /// The largest year Foundation's calendar accepts before it falls back.
    static let maxCalendarYear = 506_714

    /// Seconds since 2001-01-01T00:00:00Z, or `nil` if the text is not a date.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, julianBeforeGregorian: Bool = true, strict: Bool = true) -> Double? {
        var i = 0
        func digit(_ k: Int) -> Int? {
            guard k < b.count else { return nil }
            let d = b[k] &- UInt8(ascii: "0")
            return d < 10 ? Int(d) : nil
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        func twoDigits(then separator: Character) -> Int? {
            guard let a = digit(i), let c = digit(i + 1) else { return nil }
            i += 2
            return expect(separator) ? a * 10 + c : nil
        }

        let negative = expect("-")
        var year = 0
        while let d = digit(i) {
            let (m, o1) = year.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(d)
            guard !o1, !o2 else { return nil }
            year = s
            i += 1
        }
        guard expect("-"),
              let month = twoDigits(then: "-"),
              let day = twoDigits(then: "T"),
              let hour = twoDigits(then: ":"),
              let minute = twoDigits(then: ":"),
              let second = twoDigits(then: "Z"),
              i == b.count
        else { return nil }

        let inRange = (1...12).contains(month) && day >= 1 && day <= daysInMonth(month, year: year, julian: julianBeforeGregorian)
            && hour < 24 && minute < 60 && second < 60
        if !inRange {
            // Foundation carries out-of-range fields over (month 13 is next January, February 30 is
            // March 1 or 2); Apple's writers never produce them, so strict reading refuses them.
            guard !strict, !negative, month >= 1, day >= 1, year <= maxCalendarYear else { return nil }
            let carriedYear = year + (month - 1) / 12
            let firstOfMonth = calendarSeconds(year: carriedYear, month: (month - 1) % 12 + 1, day: 1, hour: 0, minute: 0,
                                               second: 0, julianBeforeGregorian: julianBeforeGregorian)
            return firstOfMonth + Double((day - 1) * 86_400 + hour * 3_600 + minute * 60 + second)
        }

        if year <= maxCalendarYear {
            return calendarSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                   julianBeforeGregorian: julianBeforeGregorian)
        }
        return fallbackSeconds(year: negative ? -year : year, month: month, day: day,
                               hour: hour, minute: minute, second: second)
    }

    /// The length of `month` in `year`: Julian leap years before 1582, Gregorian ones after.
    static func daysInMonth(_ month: Int, year: Int, julian: Bool = true) -> Int {
        switch month {
        case 2:
            let leap = julian && year < 1582 ? year % 4 == 0 : (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Foundation's Gregorian calendar with the 1582 Julian cutover, in UTC.
    static func calendarSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
                                julianBeforeGregorian: Bool = true) -> Double {
        var jd = julianDayBeforeMonth(month: month, year: year, julian: false) + day
        if julianBeforeGregorian && jd < julianCutoverDay {
            jd = julianDayBeforeMonth(month: month, year: year, julian: true) + day
        }
        // Every term is a whole number of seconds well inside 2^53, so this equals Foundation's
        // floating-point sum exactly.
        return Double((jd - referenceJulianDay) * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// The Julian day number of the day before the first of `month` (1...12) in `year`
    /// (E. G. Richards' algorithm, as Foundation's calendar computes it).
    static func julianDayBeforeMonth(month: Int, year: Int, julian: Bool) -> Int {
        let h = month - 2
        let g = year + 4716 - (12 - h) / 12
        let f = (h - 1 + 12) % 12
        let e = (1461 * g) / 4 - 1 - 1401
        let j = e + (153 * f + 2) / 5
        return julian ? j : j - (3 * ((g + 184) / 100)) / 4 + 38
    }

    /// Foundation's fallback for years its calendar does not take: a proleptic Gregorian count
    /// carried out in `Double`, step by step as Foundation does it.
    static func fallbackSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Double? {
        let (relative, overflow) = year.subtractingReportingOverflow(2001)
        guard !overflow else { return nil }
        let chunks = relative / 400
        var days = Double(chunks) * 146_097.0
        let remaining = relative - chunks * 400
        if remaining < 0 {
            for y in remaining..<0 { days -= Double(daysInYear(y)) }
        } else {
            for y in 0..<remaining { days += Double(daysInYear(y)) }
        }
        if let before = daysBeforeMonth(month, relativeYear: relative) { days += Double(before) }
        days += Double(day - 1)
        var seconds = 86_400.0 * days
        seconds += Double(hour) * 3_600.0 + Double(minute) * 60.0 + Double(second)
        return seconds
    }

    /// Leap years counted from 2001 (`relativeYear` 0 is 2001), as Foundation's fallback counts them.
    static func isLeap(relativeYear: Int) -> Bool {
        var y = (relativeYear + 1) % 400
        if y < 0 { y = -y }
        return y & 3 == 0 && y != 100 && y != 200 && y != 300
    }

    static func daysInYear(_ relativeYear: Int) -> Int { isLeap(relativeYear: relativeYear) ? 366 : 365 }

    static func daysBeforeMonth(_ month: Int, relativeYear: Int) -> Int? {
        let leap = isLeap(relativeYear: relativeYear) ? 1 : 0
        switch month {
        case 1: return 0
        case 2: return 31
        case 3...13:
            let table = [59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365]
            return table[month - 3] + leap
        default: return nil
        }
    }
}
