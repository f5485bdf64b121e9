import ModelPersistence

/// The model every `model-probe` command works on, stored as `<FOLDER>/ProbeModel.storage.plist`.
///
/// `MultiProcessTests` declares the same class (same storage name, same properties, same order), so
/// the test process and its probes share one file.
@PersistedModel
final class ProbeModel {
    @StorageName static let storageName = "ProbeModel"
    var count: Int = 0
    var a: String = ""
    var b: String = ""

    /// The value of `field` as text, or `nil` for an unknown field name.
    func text(of field: String) -> String? {
        switch field {
        case "count": return String(count)
        case "a": return a
        case "b": return b
        default: return nil
        }
    }
}
