import Foundation

/// A value a suite-backed node can keep: swift-state-graph's protocol for `UserDefaultsStored`
/// and `@GraphUserDefault`, so code declaring `struct Preferences: Codable, Equatable, Sendable,
/// UserDefaultsStorable` compiles unchanged.
///
/// Here every `Codable` value can be kept (it is stored as a structured property list, not a JSON
/// blob), so the protocol only names what the peer requires. The peer's hand-written
/// `_getValue(from:forKey:defaultValue:)`/`_setValue(to:forKey:)` requirements take Foundation's
/// `UserDefaults`, which this toolkit does not use: a type that implemented them instead of being
/// `Codable` must become `Codable` (see <doc:PersistentBacking>).
///
/// ```swift
/// struct Preferences: Codable, Equatable, Sendable, UserDefaultsStorable {
///     var fontSize = 14.0
///     var showsHidden = false
/// }
/// let preferences = UserDefaultsStored(key: "preferences", defaultValue: Preferences())
/// ```
public protocol UserDefaultsStorable: Codable, Equatable, Sendable {}

extension Bool: UserDefaultsStorable {}
extension Int: UserDefaultsStorable {}
extension Float: UserDefaultsStorable {}
extension Double: UserDefaultsStorable {}
extension String: UserDefaultsStorable {}
extension Data: UserDefaultsStorable {}
extension Date: UserDefaultsStorable {}
extension URL: UserDefaultsStorable {}
extension Optional: UserDefaultsStorable where Wrapped: UserDefaultsStorable {}
