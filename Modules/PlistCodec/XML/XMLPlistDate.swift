import Foundation

/// Parses `<date>` text as Apple's readers do: `PropertyListDecoder` (swift-foundation) in
/// `.foundation` mode, `PropertyListSerialization` (CoreFoundation) in `.coreFoundation` mode.
///
/// The text is `YYYY-MM-DDTHH:MM:SSZ`: an optional leading `-`, a year of any number of digits, the
/// other fields exactly two digits, no surrounding whitespace. Each mode is the exact inverse of
/// the writer of the same mode (`XMLDateFormat`), and gives the reader's `Date` bit for bit:
///
/// - `.foundation` resolves the fields with an ISO 8601 calendar in UTC, which is the Gregorian
///   calendar from 1582-10-15 and the Julian calendar before. The `-` is ignored unless the year is
///   past 506714, where Foundation falls back to a proleptic Gregorian count in `Double`.
/// - `.coreFoundation` counts days in the proleptic Gregorian calendar throughout (CoreFoundation's
///   `CFGregorianDateGetAbsoluteTime`), and a `-` makes the year negative.
///
/// Unless `strict`, fields out of range are carried over as the reader carries them (month 13 is
/// January of the next year, hour 24 the next day, February 30 early March). Strict parsing refuses
/// them. CoreFoundation reads months past 13 from outside its month table, so they are refused in
/// that mode, as are years past `Int32.max`, which CoreFoundation's parser overflows.
enum XMLPlistDate {
    /// The Julian day number of 1582-10-15, the first Gregorian day.
    static let julianCutoverDay = 2_299_161
    /// The Julian day number of 2001-01-01 (the reference date).
    static let referenceJulianDay = 2_451_911
    /// The largest year Foundation's calendar accepts before it falls back.
    static let maxCalendarYear = 506_714

    /// The fields of a date as written; nothing is checked but the syntax.
    struct Fields {
        var negative: Bool
        var year: Int
        var month: Int
        var day: Int
        var hour: Int
        var minute: Int
        var second: Int
    }

    /// Seconds since 2001-01-01T00:00:00Z, or `nil` if the text is not a date the mode's reader reads.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, mode: PlistWriteMode, strict: Bool) -> Double? {
        guard let f = scan(b) else { return nil }
        switch mode {
        case .foundation:
            let year = f.negative && f.year > maxCalendarYear ? -f.year : f.year
            if strict, !inRange(f, year: year, julianBefore1582: true) { return nil }
            return foundationSeconds(f)
        case .coreFoundation:
            guard f.year <= Int(Int32.max) else { return nil }
            if strict, !inRange(f, year: f.negative ? -f.year : f.year, julianBefore1582: false) { return nil }
            guard (0...13).contains(f.month) else { return nil }
            return coreFoundationSeconds(year: f.negative ? -f.year : f.year, month: f.month, day: f.day,
                                         hour: f.hour, minute: f.minute, second: f.second)
        }
    }

    /// Reads the fields of `YYYY-MM-DDTHH:MM:SSZ`.
    static func scan(_ b: UnsafeBufferPointer<UInt8>) -> Fields? {
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
        return Fields(negative: negative, year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Whether every field is in range: a real day of a real month, a time before 24:00:00.
    static func inRange(_ f: Fields, year: Int, julianBefore1582: Bool) -> Bool {
        (1...12).contains(f.month) && f.day >= 1
            && f.day <= daysInMonth(f.month, year: year, julianBefore1582: julianBefore1582)
            && f.hour < 24 && f.minute < 60 && f.second < 60
    }

    /// The length of `month` in `year`: Gregorian leap years, or Julian ones before 1582 if asked.
    static func daysInMonth(_ month: Int, year: Int, julianBefore1582: Bool) -> Int {
        switch month {
        case 2:
            let leap = julianBefore1582 && year < 1582
                ? year % 4 == 0
                : (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // MARK: PropertyListDecoder

    /// `PropertyListDecoder`'s answer: its calendar up to year 506714, its fallback after.
    static func foundationSeconds(_ f: Fields) -> Double? {
        if f.year <= maxCalendarYear {
            // The calendar carries months into years first; days and times then count on linearly.
            let monthIndex = f.month - 1
            let carry = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
            return calendarSeconds(year: f.year + carry, month: monthIndex - 12 * carry + 1, day: f.day,
                                   hour: f.hour, minute: f.minute, second: f.second)
        }
        return fallbackSeconds(year: f.negative ? -f.year : f.year, month: f.month, day: f.day,
                               hour: f.hour, minute: f.minute, second: f.second)
    }

    /// Foundation's Gregorian calendar with the 1582 Julian cutover, in UTC. `month` is 1...12; the
    /// other fields may be out of range and count on from the first of the month.
    static func calendarSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Double {
        var jd = julianDayBeforeMonth(month: month, year: year, julian: false) + day
        if jd < julianCutoverDay {
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

    /// Foundation's fallback for years its calendar does not take: CoreFoundation's proleptic
    /// Gregorian count, where a month outside the table (0, or past 13) counts as January.
    static func fallbackSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Double? {
        coreFoundationSeconds(year: year, month: (0...13).contains(month) ? month : 1, day: day,
                              hour: hour, minute: minute, second: second)
    }

    // MARK: PropertyListSerialization

    /// CoreFoundation's count: whole 400-year cycles, then year by year from 2001, then the month
    /// table (where month 0 counts as January and month 13 as the end of the year), in `Double`,
    /// step by step as CoreFoundation does it, so huge years round as they do there.
    static func coreFoundationSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Double? {
        let (relative, overflow) = year.subtractingReportingOverflow(2001)
        guard !overflow, let before = daysBeforeMonth(month, relativeYear: relative) else { return nil }
        let chunks = relative / 400
        var days = Double(chunks) * 146_097.0
        let remaining = relative - chunks * 400
        if remaining < 0 {
            for y in remaining..<0 { days -= Double(daysInYear(y)) }
        } else {
            for y in 0..<remaining { days += Double(daysInYear(y)) }
        }
        days += Double(before + day - 1)
        var seconds = 86_400.0 * days
        seconds += Double(hour) * 3_600.0 + Double(minute) * 60.0 + Double(second)
        return seconds
    }

    /// Leap years counted from 2001 (`relativeYear` 0 is 2001), as CoreFoundation counts them.
    static func isLeap(relativeYear: Int) -> Bool {
        var y = (relativeYear + 1) % 400
        if y < 0 { y = -y }
        return y & 3 == 0 && y != 100 && y != 200 && y != 300
    }

    static func daysInYear(_ relativeYear: Int) -> Int { isLeap(relativeYear: relativeYear) ? 366 : 365 }

    /// Days in the year before the first of `month`, from CoreFoundation's table (0...13).
    static func daysBeforeMonth(_ month: Int, relativeYear: Int) -> Int? {
        let leap = isLeap(relativeYear: relativeYear) ? 1 : 0
        switch month {
        case 0, 1: return 0
        case 2: return 31
        case 3...13:
            let table = [59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365]
            return table[month - 3] + leap
        default: return nil
        }
    }
}
