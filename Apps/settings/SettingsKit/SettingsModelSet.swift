import SettingsModels

/// The article's three models, made together in one location (the folder and standard suite bound
/// when they are made).
struct SettingsModelSet: Sendable {
    let preferences = UserPreferencesModel()
    let configuration = AppConfigurationModel()
    let theme = ThemeModel()
}
