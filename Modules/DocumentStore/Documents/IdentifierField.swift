@_spi(Reflection) import Swift
import Foundation

/// Gives a freshly loaded object its document's identifier, when `identifier` is a stored `String`
/// property: a `var`, or a `let` such as Dali's `let identifier = NSUUID().UUIDString`.
///
/// A `let` cannot be set through Swift's type system, and `Persistable` only asks for a getter so that
/// a `let` conforms. The runtime's field table (the one `Mirror` reads) gives the stored property's
/// offset in the object, and the store writes the `String` there. This is sound under the conditions
/// the store keeps: it writes once, right after `init(with:from:)` returned and before the object is
/// published to the identity map or returned to anyone, so no code can have read the old value after
/// the write except through the object itself (reads of a class's stored property go to memory once
/// the initializer has returned); the field is exactly a `String` (checked against the field's type
/// metadata), so the assignment releases the old value and retains the new one as any assignment does.
/// A property wrapper or a computed `identifier` has no such field: the caller reports
/// ``DocumentStoreError/identifierNotStored(kind:identifier:found:)`` instead of guessing.
enum IdentifierField {
    private static let offsets = OffsetCache()

    /// Sets `object`'s stored `identifier` to `identifier`; false when it has no such field.
    static func assign(_ identifier: String, to object: AnyObject) -> Bool {
        guard let offset = offsets.offset(for: type(of: object)) else { return false }
        let field = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset
        field.assumingMemoryBound(to: String.self).pointee = identifier
        return true
    }

    /// The byte offset of the stored `identifier: String` in instances of a class (superclasses
    /// included), found once per class.
    // @unchecked Sendable: `offsets` is only touched under `lock`
    private final class OffsetCache: @unchecked Sendable {
        private let lock = Lock()
        private var offsets: [ObjectIdentifier: Int?] = [:]

        func offset(for type: AnyClass) -> Int? {
            if let known = lock.withLock({ offsets[ObjectIdentifier(type)] }) { return known }
            var found: Int?
            // `.classType` (bit 0), spelled by value: the standard library declares its options as
            // `static var`, which strict concurrency refuses to read.
            _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, offset, fieldType, _ in
                if strcmp(name, "identifier") == 0 && fieldType == String.self { found = offset }
                return true
            }
            lock.withLock { offsets[ObjectIdentifier(type)] = .some(found) }
            return found
        }
    }
}
