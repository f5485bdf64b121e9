import Foundation
import SettingsModels

/// A setting `settings set` and `settings get` accept: a stored property of one of the models.
enum SettingsField: String, CaseIterable {
    case userName, fontSize
    case enableExperimentalFeatures, debugMode, notificationsEnabled, autoSaveInterval
    case selectedTheme

    /// A bad value for a field: which field, what was given, what it takes.
    struct BadValue: Error, CustomStringConvertible {
        let field: SettingsField
        let text: String
        var description: String { "\(field.rawValue) takes \(field.valueHelp), not '\(text)'" }
    }

    /// What the field takes, for help and errors.
    var valueHelp: String {
        switch self {
        case .userName: return "any text"
        case .fontSize, .autoSaveInterval: return "a number"
        case .enableExperimentalFeatures, .debugMode, .notificationsEnabled: return "true or false"
        case .selectedTheme: return "a theme name (a name containing 'dark' is a dark theme)"
        }
    }

    /// The model and property, as `show` prints them.
    var qualifiedName: String { "\(modelName).\(rawValue)" }

    private var modelName: String {
        switch self {
        case .userName, .fontSize: return "UserPreferencesModel"
        case .selectedTheme: return "ThemeModel"
        default: return "AppConfigurationModel"
        }
    }

    /// The field's value in `models`, as `set` accepts it.
    func value(in models: SettingsModelSet) -> String {
        switch self {
        case .userName: return models.preferences.userName
        case .fontSize: return format(models.preferences.fontSize)
        case .enableExperimentalFeatures: return String(models.configuration.enableExperimentalFeatures)
        case .debugMode: return String(models.configuration.debugMode)
        case .notificationsEnabled: return String(models.configuration.notificationsEnabled)
        case .autoSaveInterval: return format(models.configuration.autoSaveInterval)
        case .selectedTheme: return models.theme.selectedTheme.name
        }
    }

    /// Converts `text` and sets the field in `models`.
    ///
    /// - Throws: `BadValue` when `text` is not what the field takes.
    func set(_ text: String, in models: SettingsModelSet) throws {
        switch self {
        case .userName: models.preferences.userName = text
        case .fontSize: models.preferences.fontSize = try number(text)
        case .enableExperimentalFeatures: models.configuration.enableExperimentalFeatures = try flag(text)
        case .debugMode: models.configuration.debugMode = try flag(text)
        case .notificationsEnabled: models.configuration.notificationsEnabled = try flag(text)
        case .autoSaveInterval: models.configuration.autoSaveInterval = try number(text)
        case .selectedTheme:
            guard !text.isEmpty else { throw BadValue(field: self, text: text) }
            let dark = text.lowercased().contains("dark")
            models.theme.selectedTheme = UserTheme(name: text, primaryColor: dark ? "#000000" : "#007AFF",
                                                   accentColor: dark ? "#FFD60A" : "#FF9500")
        }
    }

    private func flag(_ text: String) throws -> Bool {
        switch text.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw BadValue(field: self, text: text)
        }
    }

    private func number(_ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite else { throw BadValue(field: self, text: text) }
        return value
    }
}

/// A number as `show` prints it: `16` rather than `16.0` when whole.
func format(_ number: Double) -> String {
    number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
}

/// Every line of `settings show`: stored values, then computed ones, as `Model.property = value`.
func showLines(_ models: SettingsModelSet) -> [String] {
    var lines = SettingsField.allCases.map { "\($0.qualifiedName) = \($0.value(in: models))" }
    lines += [
        "UserPreferencesModel.displayName = \(models.preferences.displayName)",
        "UserPreferencesModel.accessibilityFontSize = \(format(models.preferences.accessibilityFontSize))",
        "AppConfigurationModel.shouldShowDebugOptions = \(models.configuration.shouldShowDebugOptions)",
        "AppConfigurationModel.effectiveAutoSaveInterval = \(format(models.configuration.effectiveAutoSaveInterval))",
        "ThemeModel.isDarkTheme = \(models.theme.isDarkTheme)",
    ]
    return lines
}
