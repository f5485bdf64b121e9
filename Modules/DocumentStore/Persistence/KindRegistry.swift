import Foundation
import SQLiteSupport
import FileStorageKit
import GRDB

/// Document kinds and the types that load them.
// @unchecked Sendable: `types` is only touched under `lock`
final class KindRegistry: @unchecked Sendable {
    private let lock = Lock()
    private var types: [String: any Persistable.Type] = [:]

    func register(_ type: any Persistable.Type) {
        let kind = type.kind
        lock.withLock {
            if let existing = types[kind], ObjectIdentifier(existing) == ObjectIdentifier(type) { return }
            types[kind] = type
        }
    }

    func registered(_ kind: String) -> (any Persistable.Type)? {
        lock.withLock { types[kind] }
    }

    /// The type to build a stored `kind` with when a `T` is asked for.
    func type<T: Persistable>(forKind kind: String, identifier: String, as requested: T.Type) throws(DocumentStoreError) -> T.Type {
        if let registered = registered(kind) {
            guard let typed = registered as? T.Type else {
                throw .wrongKind(identifier: identifier, expected: T.kind, found: kind)
            }
            return typed
        }
        if T.kind == kind { return T.self }
        throw .unregisteredKind(kind: kind, identifier: identifier)
    }

    /// `T`'s kind and the kinds of every registered type that is a `T` (its subclasses).
    func kinds<T: Persistable>(of requested: T.Type) -> [String] {
        var kinds: Set<String> = [T.kind]
        lock.withLock {
            for (kind, type) in types where type is T.Type { kinds.insert(kind) }
        }
        return kinds.sorted()
    }
}
