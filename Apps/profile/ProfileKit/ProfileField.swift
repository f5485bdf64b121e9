import ArgumentParser
import Foundation

/// A persisted property of `UserProfile` as the command line names it, with how its values are
/// written as text and read back from it.
///
/// The text `show` and `get` print for a value is text `set` accepts for it, so output can be fed back in.
enum ProfileField: String, CaseIterable, ExpressibleByArgument {
    case name, email, launches, theme, lastUpdated

    /// A value of one of the fields' types.
    enum Value: Equatable {
        case text(String)
        case count(Int)
        case date(Date?)
    }

    /// The themes `theme` accepts.
    static let themes = ["system", "light", "dark"]

    /// Matches the key case-insensitively (`lastupdated` names `lastUpdated`).
    init?(argument: String) {
        guard let field = Self.allCases.first(where: { $0.rawValue.lowercased() == argument.lowercased() }) else {
            return nil
        }
        self = field
    }

    /// What a value must look like, for help and error messages.
    var valueHelp: String {
        switch self {
        case .name: return "any text"
        case .email: return "an address like ada@example.com, or \"\" to clear it"
        case .launches: return "a whole number, 0 or more"
        case .theme: return Self.themes.joined(separator: ", ")
        case .lastUpdated: return "an ISO 8601 time like 2025-01-31T09:30:00Z, \"now\", or \"none\""
        }
    }

    /// The field's counter, if it is one `increment` can change.
    var counter: ReferenceWritableKeyPath<UserProfile, Int>? {
        switch self {
        case .launches: return \UserProfile.launches
        case .name, .email, .theme, .lastUpdated: return nil
        }
    }

    // MARK: Reading and writing the model

    /// The field's current value in `profile`.
    func value(in profile: UserProfile) -> Value {
        switch self {
        case .name: return .text(profile.name)
        case .email: return .text(profile.email)
        case .launches: return .count(profile.launches)
        case .theme: return .text(profile.theme)
        case .lastUpdated: return .date(profile.lastUpdated)
        }
    }

    /// Sets the field in `profile` to `value` (a value `parse` returned for this field).
    func assign(_ value: Value, to profile: UserProfile) {
        switch (self, value) {
        case (.name, .text(let text)): profile.name = text
        case (.email, .text(let text)): profile.email = text
        case (.launches, .count(let count)): profile.launches = count
        case (.theme, .text(let text)): profile.theme = text
        case (.lastUpdated, .date(let date)): profile.lastUpdated = date
        default: break   // `parse` never pairs a field with another field's type
        }
    }

    // MARK: Text

    /// Converts `text` to the field's type.
    ///
    /// - Throws: `ValidationError` saying what the field needs and what it got.
    func parse(_ text: String) throws(ValidationError) -> Value {
        switch self {
        case .name:
            return .text(text)
        case .email:
            let parts = text.split(separator: "@", omittingEmptySubsequences: false)
            guard text.isEmpty || (parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
                                   && !text.contains(where: \.isWhitespace)) else { throw invalid(text) }
            return .text(text)
        case .launches:
            guard let count = Int(text), count >= 0 else { throw invalid(text) }
            return .count(count)
        case .theme:
            guard Self.themes.contains(text.lowercased()) else { throw invalid(text) }
            return .text(text.lowercased())
        case .lastUpdated:
            switch text.lowercased() {
            case "now": return .date(Date())
            case "none": return .date(nil)
            default:
                guard let date = Self.parseDate(text) else { throw invalid(text) }
                return .date(date)
            }
        }
    }

    /// `value` as `show` and `get` print it: text as it is, dates in ISO 8601 (UTC), `none` for no date.
    static func format(_ value: Value) -> String {
        switch value {
        case .text(let text): return text
        case .count(let count): return String(count)
        case .date(let date): return date.map(formatDate) ?? "none"
        }
    }

    private func invalid(_ text: String) -> ValidationError {
        ValidationError("\(rawValue) needs \(valueHelp); got \"\(text)\"")
    }

    // MARK: Dates

    /// Whole seconds, or fractional seconds when the date has them.
    static func formatDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        if date.timeIntervalSince1970.rounded(.down) != date.timeIntervalSince1970 {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        }
        return formatter.string(from: date)
    }

    /// An ISO 8601 date and time, with or without fractional seconds.
    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
