import Foundation
import PlistCodec

extension DefaultsSuite {
    /// The writers for async code: the same durable, merging writes, waiting for the lock with
    /// `Task.sleep`, so a task waiting for another writer never holds one of the cooperative pool's
    /// threads (the synchronous setters sleep on the calling thread).
    ///
    /// ```swift
    /// try await suite.async.set(true, forKey: "onboarded")
    /// let launches = try await suite.async.increment("launches")
    /// ```
    ///
    /// They live on a view of their own rather than as `async` overloads of `set(_:forKey:)` and the
    /// rest: Swift picks an `async` overload of the same name inside every `async` function, so code
    /// ported from `UserDefaults` (`try suite.set(1, forKey: "n")`) would stop compiling there.
    public var async: AsyncWriters { AsyncWriters(suite: self) }

    /// `DefaultsSuite`'s writers for async code; see `DefaultsSuite.async`.
    ///
    /// ```swift
    /// let writers = suite.async
    /// try await writers.set("dark", forKey: "theme")
    /// try await writers.update(forKey: "launches") { $0 = .int(($0?.intValue ?? 0) + 1) }
    /// ```
    ///
    /// Each throws what the synchronous method of the same name throws (see
    /// ``DefaultsSuite/update(forKey:_:)``).
    public struct AsyncWriters: Sendable {
        /// The suite written to.
        public let suite: DefaultsSuite

        /// Stores `value` for `key` (or removes the key when `nil`), durably, merging into the newest file.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: PlistValue?, forKey key: String) async throws {
            try await suite.mutate { $0[key] = value }
        }

        /// Removes the stored value for `key`.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func removeObject(forKey key: String) async throws {
            try await set(nil, forKey: key)
        }

        /// Atomically reads, changes and writes the value for `key` under the exclusive lock.
        ///
        /// - Throws: What `body` threw, or a `FileStorageError` as ``DefaultsSuite/update(forKey:_:)``;
        ///   nothing is written.
        @discardableResult
        public func update<R>(forKey key: String, _ body: (inout PlistValue?) throws -> R) async throws -> R {
            try await suite.mutate { dict in
                var value = dict[key]
                let result = try body(&value)
                dict[key] = value
                return result
            }
        }

        /// Changes many keys in one locked read-merge-write.
        ///
        /// - Throws: What `body` threw, or a `FileStorageError` as ``DefaultsSuite/update(forKey:_:)``;
        ///   nothing is written.
        @discardableResult
        public func updateAll<R>(_ body: (inout PlistDictionary) throws -> R) async throws -> R {
            try await suite.mutate(body)
        }

        /// Atomically adds `amount` to the integer for `key` (missing counts as 0) and returns the new value.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        @discardableResult
        public func increment(_ key: String, by amount: Int = 1) async throws -> Int {
            try await update(forKey: key) { value in
                let next = (value?.intValue ?? 0) + amount
                value = .int(next)
                return next
            }
        }

        /// Stores a Codable value for `key`, encoded as property-list values.
        ///
        /// - Throws: `FileStorageError.encodingFailed` naming the key when `value` does not encode, or a
        ///   write's `FileStorageError` as ``DefaultsSuite/update(forKey:_:)``.
        public func set<T: Encodable>(encoding value: T, forKey key: String) async throws {
            try await set(try suite.encodedValue(value, forKey: key), forKey: key)
        }

        /// Stores a Boolean.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: Bool, forKey key: String) async throws { try await set(.bool(value), forKey: key) }
        /// Stores an integer.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: Int, forKey key: String) async throws { try await set(.int(value), forKey: key) }
        /// Stores a real.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: Double, forKey key: String) async throws { try await set(.real(value), forKey: key) }
        /// Stores a 32-bit real.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: Float, forKey key: String) async throws { try await set(.float(value), forKey: key) }
        /// Stores a string.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: String, forKey key: String) async throws { try await set(.string(value), forKey: key) }
        /// Stores data.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: Data, forKey key: String) async throws { try await set(.data(value), forKey: key) }
        /// Stores a date.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: Date, forKey key: String) async throws { try await set(.date(value), forKey: key) }
        /// Stores an array of strings.
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        public func set(_ value: [String], forKey key: String) async throws {
            try await set(.array(value.map(PlistValue.string)), forKey: key)
        }
        /// Stores a URL as `DefaultsSuite.set(_:forKey:)` does (a file URL as its path), or removes the key for `nil`.
        ///
        /// - Throws: `FileStorageError`, as ``DefaultsSuite/update(forKey:_:)``.
        // Disfavoured, so `set(nil, forKey:)` still means "remove" without naming a type.
        @_disfavoredOverload
        public func set(_ value: URL?, forKey key: String) async throws {
            try await set(value.map(DefaultsSuite.storedValue(for:)), forKey: key)
        }
    }
}
