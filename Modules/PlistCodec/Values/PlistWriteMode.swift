/// Which Apple writer's byte layout to reproduce.
///
/// ```swift
/// let likePlutil = try value.serialized(as: .binary, mode: .coreFoundation)
/// ```
public enum PlistWriteMode: Hashable, Sendable {
    /// `PropertyListEncoder` (swift-foundation): minimal offset widths, sharing of equal scalars.
    case foundation
    /// CoreFoundation (`PropertyListSerialization`, `plutil`): power-of-two widths, `%.17g` reals,
    /// distinct zeros, repeated booleans written as CF writes them.
    case coreFoundation
}
