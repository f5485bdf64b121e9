import Foundation

extension Persistence {
    /// The live instance for `identifier` as the caller sees it: inside a transaction, the one it
    /// saved, loaded or refreshed (or none, when it deleted the document), else the shared map's.
    func cachedObject(_ identifier: String) -> AnyObject? { cachedObject(IdentifierKey(identifier)) }

    /// The live instance for `key`'s identifier as the caller sees it (as for an identifier, hashed once).
    @inline(__always)
    func cachedObject(_ key: IdentifierKey) -> AnyObject? {
        if let context = currentContext() {
            switch context.cached(key) {
            case .object(let object): return object
            case .none: return nil
            case .unknown: break
            }
        }
        return identityMap.object(key)
    }

    /// `object` as a `T`, the common case (an object of exactly the class asked for) without the
    /// runtime's dynamic cast.
    @inline(__always)
    static func cast<T: Persistable>(_ object: AnyObject, to type: T.Type) -> T? {
        if ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) { return unsafeDowncast(object, to: T.self) }
        return object as? T
    }

    /// Puts a fresh instance in place of `key`'s (nil removes it): in the transaction, which
    /// publishes it on commit, or at once outside one.
    func replaceCached(_ key: IdentifierKey, with object: AnyObject?, revision: String) {
        if let context = currentContext() {
            context.replace(key, with: object, revision: revision)
        } else {
            identityMap.replace(key, with: object, revision: revision)
        }
    }
}
