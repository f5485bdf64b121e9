import ModelPersistence

/// The same settings, as a class whose stored properties live in NotesSettings.storage.plist.
@PersistedModel
final class NotesSettings {
    var theme: String = "light"
    var fontSize: Double = 12
    var launches: Int = 0
}
