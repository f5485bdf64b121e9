import FileStorageKit
import PlistCodec
import Synchronization

/// The storage of a node kept under a key of a defaults suite (swift-state-graph 0.25's
/// `UserDefaultsStorage`): ``UserDefaultsStored`` is `StoredNode<Value, UserDefaultsStorage<Value>>`.
///
/// ```swift
/// let storage = UserDefaultsStorage(suiteName: "com.example.reader", key: "size", defaultValue: 14.0)
/// let size: UserDefaultsStored<Double> = StoredNode(storage: storage)
/// ```
///
/// The original takes a `UserDefaults`; here the suite is a `DefaultsSuite` file
/// named by `suiteName` (the standard suite's name when `nil`) in the folder
/// ``GraphStorageLocation`` names when the storage is made. A node made with the storage reads the
/// suite then, writes every set that changes what the suite holds, and takes every change another
/// writer (another suite instance, another process) makes to the key, as ``StoredNode``'s
/// `init(name:backing:defaultValue:)` describes.
// @unchecked Sendable: every field is a constant set in `init` but `memoryValue`, only touched under `memory`; `value` goes through the suite, which is safe from any thread
public final class UserDefaultsStorage<Value: Codable>: Storage, @unchecked Sendable {
    /// The suite's entry, or `nil` for a storage made with `.memory`.
    let entry: SuiteEntry?
    let key: String
    let defaultValue: Value
    /// The node's name from the backing (`.userDefaults(key:)` names the node after the key).
    let nodeName: String?
    /// The value of a storage made with `.memory`, when used on its own (not through a node).
    private let memory: Mutex<Void> = Mutex(())
    nonisolated(unsafe) private var memoryValue: Value

    /// A storage for `key` of the suite `suiteName` (the standard suite when `nil`), `defaultValue`
    /// while the suite holds nothing for the key.
    ///
    /// - Parameters:
    ///   - suiteName: The suite's name; `nil` for ``GraphStorageLocation``'s standard suite.
    ///   - key: The suite's key.
    ///   - defaultValue: The value while the suite holds none for the key.
    public convenience init(suiteName: String? = nil, key: String, defaultValue: Value) {
        self.init(backing: GraphStorageBacking(place: .suite(suiteName, key: key)), defaultValue: defaultValue)
    }

    /// A storage where `backing` says: in memory, or under a key of a suite.
    init(backing: GraphStorageBacking, defaultValue: Value) {
        self.defaultValue = defaultValue
        memoryValue = defaultValue
        nodeName = backing.nodeName
        switch backing.place {
        case .memory:
            entry = nil
            key = ""
        case .suite(let suite, let key):
            self.key = key
            entry = SuiteEntry.shared(storage: GraphStorageLocation.currentStorage,
                                      suiteName: suite ?? GraphStorageLocation.currentStandardSuiteName)
        }
    }

    /// The suite's value for the key, or the default when it has none or its value does not decode
    /// (reported to ``GraphStorageErrors``). Setting it writes the suite; a node made with this storage
    /// takes the change as another writer's. A node's own reads and writes do not use this property.
    public var value: Value {
        get {
            guard let entry else { return memory.withLock { _ in memoryValue } }
            guard let stored = entry.suite.object(forKey: key) else { return defaultValue }
            do {
                return try PlistDecoder().decode(Value.self, from: stored)
            } catch {
                report(.decode, error, entry)
                return defaultValue
            }
        }
        set {
            guard let entry else { return memory.withLock { _ in memoryValue = newValue } }
            do {
                try entry.suite.set(Self.encode(newValue), forKey: key)
            } catch {
                report(.write, error, entry)
            }
        }
    }

    /// Does nothing: a node made with this storage watches the suite itself.
    public func loaded(context: StorageContext) {}

    /// Does nothing.
    public func unloaded() {}

    /// The suite's form of `value`: `nil` (no key) for an optional that is `nil`.
    static func encode(_ value: Value) throws -> PlistValue? {
        if let optional = value as? any OptionalGraphValue, optional.isNone { return nil }
        return try PlistEncoder().encodeToValue(value)
    }

    /// A binding of a node to the suite's key, or `nil` for a storage in memory.
    func makeBinding() -> SuiteBinding<Value>? {
        guard let entry else { return nil }
        return SuiteBinding<Value>(entry: entry, key: key, defaultValue: defaultValue, encode: Self.encode, decode: { stored in
            try PlistDecoder().decode(Value.self, from: stored)
        })
    }

    private func report(_ operation: GraphStorageError.Operation, _ error: any Error, _ entry: SuiteEntry) {
        GraphStorageErrors.report(GraphStorageError(url: entry.suite.url, key: key, operation: operation,
                                                    reason: "\(error)", fileError: error as? FileStorageError))
    }
}

/// A storage that places a node in a defaults suite (``UserDefaultsStorage``), seen through its value type.
protocol SuitePlacement<Value> {
    associatedtype Value
    var defaultValue: Value { get }
    var nodeName: String? { get }
    func makeBinding() -> SuiteBinding<Value>?
}

extension UserDefaultsStorage: SuitePlacement {}
