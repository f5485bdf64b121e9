import Foundation
import ModelPersistence

/// The profile the `profile` command keeps: one `@PersistedModel` class, stored as
/// `UserProfile.storage.plist` (binary) in the default folder or the one `--folder` names.
///
/// Every property has a default, so a fresh profile needs no arguments; when the file exists, its
/// values win over these defaults.
@PersistedModel
final class UserProfile {
    /// The user's display name.
    var name: String = ""
    /// An e-mail address, or empty.
    var email: String = ""
    /// How many times `profile increment launches` counted (never negative).
    var launches: Int = 0
    /// `system`, `light` or `dark`.
    var theme: String = "system"
    /// When a command last changed the profile; `nil` until one does.
    var lastUpdated: Date? = nil
}
