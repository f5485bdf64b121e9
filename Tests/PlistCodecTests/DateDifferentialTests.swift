import Foundation
import PlistCodec
import Testing
import TestSupport

/// XML dates in every year from 1 to 9999, against both of Foundation's writers and readers.
///
/// Each writer mode prints what its Foundation writer prints (`.foundation`: `PropertyListEncoder`,
/// the Julian calendar before 1582-10-15; `.coreFoundation`: `PropertyListSerialization`, the proleptic
/// Gregorian calendar), the reader of each mode reads any text as the matching Foundation reader does,
/// and so reading is the exact inverse of writing in the same mode: the date comes back as its whole
/// second (XML has no fractions).
@Suite(.timeLimit(.minutes(5)))
struct DateDifferentialTests {
    /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
    static func gregorianDays(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        return era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
    }

    /// Days since 1970-01-01 of a date in the Julian calendar.
    static func julianDays(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let a = (14 - month) / 12
        let y = year + 4800 - a
        let m = month + 12 * a - 3
        return day + (153 * m + 2) / 5 + 365 * y + y / 4 - 32_083 - 2_440_588
    }

    /// Seconds since 2001-01-01 for a day (days since 1970) and a time of day.
    static func date(days: Int, seconds: Double) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(days * 86_400 - 978_307_200) + seconds)
    }

    /// The dates of years `years`: January 1 at midnight and December 31 a quarter second before
    /// midnight in both calendars (Julian only before 1583, where they differ), and a mid-year time
    /// with a fraction; plus, around the reform, every day from 1582-10-01 to 10-25 in both calendars.
    static func dates(in years: ClosedRange<Int>) -> [Date] {
        var dates: [Date] = []
        for year in years {
            dates.append(date(days: gregorianDays(year, 1, 1), seconds: 0))
            dates.append(date(days: gregorianDays(year, 12, 31), seconds: 86_399.75))
            dates.append(date(days: gregorianDays(year, 6, 15), seconds: 45_296.789))
            if year <= 1582 {
                dates.append(date(days: julianDays(year, 1, 1), seconds: 0))
                dates.append(date(days: julianDays(year, 12, 31), seconds: 86_399.5))
            }
            if year == 1582 {
                for day in 1...25 {
                    dates.append(date(days: gregorianDays(1582, 10, day), seconds: 0))
                    dates.append(date(days: gregorianDays(1582, 10, day), seconds: 86_399.25))
                    dates.append(date(days: julianDays(1582, 10, day), seconds: 43_200.5))
                }
            }
        }
        return dates
    }

    static let centuries: [ClosedRange<Int>] = stride(from: 1, through: 9999, by: 100).map { $0...min($0 + 99, 9999) }

    /// Bit patterns, so a date off by any amount (or a sign of zero) shows.
    static func bits(_ dates: [Date]) -> [UInt64] { dates.map(\.timeIntervalSinceReferenceDate.bitPattern) }

    static func bits(_ value: PlistValue) -> [UInt64]? {
        value.arrayValue?.map { item -> UInt64 in
            guard case .date(let d) = item else { return 0 }
            return d.timeIntervalSinceReferenceDate.bitPattern
        }
    }

    static func describeFirstDifference(_ ours: [UInt64], _ theirs: [UInt64], _ dates: [Date]) -> String {
        guard let i = ours.indices.first(where: { $0 < theirs.count && ours[$0] != theirs[$0] }), i < dates.count else {
            return "counts \(ours.count) and \(theirs.count)"
        }
        let show = { (b: UInt64) in String(Double(bitPattern: b)) }
        return "date #\(i) (\(dates[i].timeIntervalSinceReferenceDate) s): ours \(show(ours[i])), Foundation \(show(theirs[i]))"
    }

    /// `.foundation` against `PropertyListEncoder` and `PropertyListDecoder`.
    @Test(arguments: centuries)
    func foundationModeMatchesPropertyListEncoderAndDecoder(years: ClosedRange<Int>) throws {
        let dates = Self.dates(in: years)
        let whole = dates.map { Date(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate.rounded(.down)) }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        let theirs = try encoder.encode(dates)
        let ours = try PlistValue.array(dates.map { .date($0) }).serialized(as: .xml)
        if let difference = Fixtures.firstDifference(ours, theirs) { Issue.record("\(years): writers differ: \(difference)") }

        let foundationRead = try PropertyListDecoder().decode([Date].self, from: theirs)
        #expect(Self.bits(foundationRead) == Self.bits(whole), "\(years): Foundation's own round trip")
        let ourRead = try #require(Self.bits(try PlistValue(parsing: ours)))
        #expect(ourRead == Self.bits(whole), "\(years): not the inverse: \(Self.describeFirstDifference(ourRead, Self.bits(whole), dates))")
        #expect(Self.bits(try PlistDecoder().decode([Date].self, from: theirs)) == Self.bits(foundationRead))

        // Text the other writer printed is read as PropertyListDecoder reads it, shifted days included.
        let coreFoundationText = try PropertyListSerialization.data(fromPropertyList: dates, format: .xml, options: 0)
        let shifted = Self.bits(try PropertyListDecoder().decode([Date].self, from: coreFoundationText))
        let ourShifted = try #require(Self.bits(try PlistValue(parsing: coreFoundationText)))
        #expect(ourShifted == shifted, "\(years): \(Self.describeFirstDifference(ourShifted, shifted, dates))")
    }

    /// `.coreFoundation` against `PropertyListSerialization`, writing and reading.
    @Test(arguments: centuries)
    func coreFoundationModeMatchesPropertyListSerialization(years: ClosedRange<Int>) throws {
        let dates = Self.dates(in: years)
        let whole = dates.map { Date(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate.rounded(.down)) }
        let mode = PlistReadOptions(dates: .coreFoundation)
        let theirs = try PropertyListSerialization.data(fromPropertyList: dates, format: .xml, options: 0)
        let ours = try PlistValue.array(dates.map { .date($0) }).serialized(as: .xml, mode: .coreFoundation)
        if let difference = Fixtures.firstDifference(ours, theirs) { Issue.record("\(years): writers differ: \(difference)") }

        let foundationRead = try #require(try PropertyListSerialization.propertyList(from: theirs, format: nil) as? [Date])
        #expect(Self.bits(foundationRead) == Self.bits(whole), "\(years): Foundation's own round trip")
        let ourRead = try #require(Self.bits(try PlistValue(parsing: ours, options: mode)))
        #expect(ourRead == Self.bits(whole), "\(years): not the inverse: \(Self.describeFirstDifference(ourRead, Self.bits(whole), dates))")

        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        let foundationText = try encoder.encode(dates)
        let shifted = try #require(try PropertyListSerialization.propertyList(from: foundationText, format: nil) as? [Date])
        let ourShifted = try #require(Self.bits(try PlistValue(parsing: foundationText, options: mode)))
        #expect(ourShifted == Self.bits(shifted), "\(years): \(Self.describeFirstDifference(ourShifted, Self.bits(shifted), dates))")
    }

    /// Binary to XML to binary, in each mode, through the streaming converters `plist -convert` uses:
    /// every date comes back as its whole second (the bug was two days lost in years 0 and 1).
    @Test(arguments: [PlistWriteMode.foundation, .coreFoundation])
    func binaryToXMLToBinaryKeepsEveryDate(mode: PlistWriteMode) throws {
        let dates = Self.dates(in: 1...9999) + [Self.date(days: Self.gregorianDays(0, 12, 31), seconds: 0),
                                                 Self.date(days: Self.julianDays(0, 12, 31), seconds: 0)]
        let binary = try PlistValue.array(dates.map { .date($0) }).serialized(as: .binary, mode: mode)
        var xml = Data()
        try PlistStreaming.writeXML(fromBinary: binary, mode: mode) { xml += $0 }
        var back = Data()
        try PlistStreaming.writeBinary(fromXML: xml, mode: mode, options: PlistReadOptions(dates: mode)) { back += $0 }
        let expected = dates.map { PlistValue.date(Date(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate.rounded(.down))) }
        let read = try PlistValue(parsing: back)
        #expect(read == .array(expected), "\(mode): \(Self.describeFirstDifference(Self.bits(read) ?? [], Self.bits(.array(expected)) ?? [], dates))")
    }

    // MARK: Fields out of range

    /// Date text with fields out of range (month 0 or 13, day 0 or 32, hour 24, ...) reads as each
    /// Foundation reader carries it over, bit for bit; strict reading refuses it.
    @Test(arguments: [PlistWriteMode.foundation, .coreFoundation])
    func carriedOverFieldsMatchFoundation(mode: PlistWriteMode) throws {
        let seed = TestSeed.make()
        print("seed: \(seed) (carriedOverFieldsMatchFoundation, \(mode); replay with \(TestSeed.variable)=\(seed))")
        var rng = SeededGenerator(seed: seed)
        var texts = ["2020-13-01T00:00:00Z", "2020-00-01T00:00:00Z", "2020-01-00T00:00:00Z", "2020-01-32T00:00:00Z",
                     "2021-02-29T00:00:00Z", "2021-02-30T00:00:00Z", "2020-01-01T24:00:00Z", "2020-01-01T00:60:00Z",
                     "2020-01-01T00:00:60Z", "2020-12-31T99:99:99Z", "1500-02-29T00:00:00Z", "1582-10-10T00:00:00Z",
                     "1582-10-04T99:00:00Z", "1581-12-32T00:00:00Z", "1700-02-29T00:00:00Z", "0000-00-00T00:00:00Z",
                     "0001-01-00T00:00:00Z", "0000-13-31T23:59:60Z", "9999-13-99T99:99:99Z", "-001-12-31T00:00:00Z",
                     "600000-13-00T24:00:00Z", "-0005-02-29T00:00:00Z"]
        for _ in 0..<(1_500 * TestSeed.scale) {
            let year = rng.chance(0.9) ? rng.int(in: 0...9999) : rng.int(in: 10_000...1_000_000)
            let month = rng.chance(0.5) ? rng.int(in: 0...13) : rng.int(in: 0...99)
            let fields = [month, rng.int(in: 0...99), rng.int(in: 0...99), rng.int(in: 0...99), rng.int(in: 0...99)]
            let sign = mode == .coreFoundation && rng.chance(0.1) ? "-" : ""
            texts.append(sign + String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, fields[0], fields[1], fields[2], fields[3], fields[4]))
        }
        var mismatches: [String] = []
        for text in texts {
            let data = Data("<plist version=\"1.0\"><array><date>\(text)</date></array></plist>".utf8)
            let theirs: Date?
            switch mode {
            case .foundation: theirs = (try? PropertyListDecoder().decode([Date].self, from: data))?.first
            case .coreFoundation:
                // CoreFoundation reads months past 13 from outside its month table: we refuse those.
                let month = Int(text.split(separator: "-")[1]) ?? 0
                theirs = month > 13 ? nil : ((try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [Date])?.first
            }
            let ours = try? PlistValue(parsing: data, options: PlistReadOptions(dates: mode))
            let oursDate: Date? = { if case .date(let d)? = ours?.arrayValue?.first { return d } else { return nil } }()
            if oursDate?.timeIntervalSinceReferenceDate.bitPattern != theirs?.timeIntervalSinceReferenceDate.bitPattern {
                mismatches.append("\(text): ours \(oursDate.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "refused"), "
                    + "Foundation \(theirs.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "refused")")
            }
            if let oursDate, !XMLDateText.isInRange(text, mode: mode) {
                let strict = #expect(throws: PlistError.self, "\(text) read strictly as \(oursDate)") {
                    try PlistValue(parsing: data, options: PlistReadOptions(dates: mode, strict: true))
                }
                #expect(strict?.kind == .invalidDate)
            }
        }
        #expect(mismatches.isEmpty, "seed \(seed), \(mode): \(mismatches.count) of \(texts.count) differ:\n\(mismatches.prefix(20).joined(separator: "\n"))")
    }
}

/// Whether date text names a real day and time, decided by Foundation's own calendar for the mode.
enum XMLDateText {
    static func isInRange(_ text: String, mode: PlistWriteMode) -> Bool {
        let body = text.hasPrefix("-") ? String(text.dropFirst()) : text
        let parts = body.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int($0) }
        guard parts.count == 6 else { return false }
        let (year, month, day) = (parts[0], parts[1], parts[2])
        guard (1...12).contains(month), (1...31).contains(day), parts[3] < 24, parts[4] < 60, parts[5] < 60 else { return false }
        let julian = mode == .foundation && year < 1582
        let leap = julian ? year % 4 == 0 : (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }
}
