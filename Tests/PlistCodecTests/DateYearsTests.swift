import Foundation
import Testing
import TestSupport
@testable import PlistCodec

/// Issue 11, item 5: XML dates in every year from 1 to 9999 are written as Foundation writes them
/// and read back as Foundation reads them, and each writer mode's text reads back to the same
/// second with the matching reader mode.
///
/// Foundation's own encoder and decoder on this machine are the oracle. Its calendar (ISO 8601 in
/// UTC) is Julian before 1582-10-15, so the dates come from it: for each year, January 1 at
/// 00:00:00, December 31 at 23:59:59, and a mid-year moment with a fraction of a second.
@Suite struct DateYearsTests {
    static func foundationDates() -> [Date] {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var dates: [Date] = []
        for year in 1...9999 {
            for (month, day, hour, minute, second) in [(1, 1, 0, 0, 0), (12, 31, 23, 59, 59), (6, 15, 12, 34, 56)] {
                let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
                guard let date = calendar.date(from: components) else { continue }
                dates.append(month == 6 ? date.addingTimeInterval(0.789) : date)
            }
        }
        // Year 0 (1 BC), the one year before year 1 that Foundation writes and reads back.
        for (month, day) in [(1, 1), (2, 29), (6, 15), (12, 31)] {
            let date = calendar.date(from: DateComponents(era: 0, year: 1, month: month, day: day, hour: 12, minute: 0, second: 7))!
            dates.append(date.addingTimeInterval(0.25))
        }
        // The days around the switch from the Julian to the Gregorian calendar.
        let cutover = calendar.date(from: DateComponents(year: 1582, month: 10, day: 15))!
        for hours in stride(from: -72, through: 72, by: 6) { dates.append(cutover.addingTimeInterval(Double(hours) * 3600 + 0.5)) }
        return dates
    }

    /// One `<date>` element's text as Foundation's XML encoder writes it.
    static func dateText(_ xml: Data) -> String {
        let text = String(decoding: xml, as: UTF8.self)
        return text.components(separatedBy: "<date>")[1].components(separatedBy: "</date>")[0]
    }

    @Test func everyYearMatchesFoundationsEncoderAndDecoder() throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        var ours = PlistEncoder()
        ours.outputFormat = .xml
        let dates = Self.foundationDates()
        #expect(dates.count >= 3 * 9999)
        var failures = 0
        for date in dates {
            let foundationXML = try encoder.encode([date])
            let ourXML = try ours.encode([date])
            let readByFoundation = try PropertyListDecoder().decode([Date].self, from: foundationXML)[0]
            let readByUs = try PlistDecoder().decode([Date].self, from: foundationXML)[0]
            let whole = date.timeIntervalSinceReferenceDate.rounded(.down)
            if ourXML != foundationXML
                || readByUs.timeIntervalSinceReferenceDate.bitPattern != readByFoundation.timeIntervalSinceReferenceDate.bitPattern
                || readByUs.timeIntervalSinceReferenceDate != whole {
                failures += 1
                if failures <= 10 {
                    Issue.record("""
                        \(date.timeIntervalSinceReferenceDate): Foundation writes \(Self.dateText(foundationXML)) and reads \
                        \(readByFoundation.timeIntervalSinceReferenceDate); we write \(Self.dateText(ourXML)) and read \
                        \(readByUs.timeIntervalSinceReferenceDate)
                        """)
                }
            }
        }
        #expect(failures == 0, "\(failures) of \(dates.count) dates differ")
    }

    /// Binary → XML → binary keeps every date to the second, in both writer modes, each read with
    /// its own reader mode.
    @Test(arguments: [PlistWriteMode.foundation, .coreFoundation])
    func eachWriterModeReadsBackWithItsReader(_ mode: PlistWriteMode) throws {
        var failures = 0
        let dates = Self.foundationDates()
        // CoreFoundation's proleptic Gregorian text has no year before 1, which leaves out the last
        // days of Julian year 0: 0001-01-01 (Gregorian) is 730,485 days before 2001-01-01.
        let earliest = mode == .coreFoundation ? -730_485.0 * 86_400 : -.infinity
        for date in dates where date.timeIntervalSinceReferenceDate >= earliest {
            let value = PlistValue.array([.date(date)])
            let xml = try value.serialized(as: .xml, mode: mode)
            let back = try PlistValue(parsing: xml, options: PlistReadOptions(dates: mode == .foundation ? .foundation : .coreFoundation))
            let expected = date.timeIntervalSinceReferenceDate.rounded(.down)
            guard case .array(let items) = back, case .date(let read)? = items.first,
                  read.timeIntervalSinceReferenceDate == expected else {
                failures += 1
                if failures <= 10 { Issue.record("\(mode): \(expected) wrote \(Self.dateText(xml)), read \(back)") }
                continue
            }
        }
        #expect(failures == 0, "\(failures) of \(dates.count) dates did not come back")
    }
}
