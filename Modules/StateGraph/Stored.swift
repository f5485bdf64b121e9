/// A node kept in memory: the usual stored node (swift-state-graph's `Stored`).
///
/// ```swift
/// let count = Stored(name: "count", wrappedValue: 0)
/// count.wrappedValue += 1
/// ```
///
/// See ``StoredNode`` for what a stored node does.
public typealias Stored<Value> = StoredNode<Value, InMemoryStorage<Value>>

/// swift-state-graph 0.25's name for ``StoredNode``, so code that names the storage type
/// (`_Stored<Int, InMemoryStorage<Int>>`, `func f<S>(_ node: _Stored<Int, S>)`,
/// `_Stored(storage: UserDefaultsStorage(...))`) compiles unchanged.
public typealias _Stored<Value, S: Storage<Value>> = StoredNode<Value, S>

extension StoredNode {
    /// Creates a node kept in `storage`: ``InMemoryStorage`` (a ``Stored``), ``UserDefaultsStorage``
    /// (a ``UserDefaultsStored``) or a ``Storage`` of your own, whose value the node reads now, sets on
    /// every set of the node, and reads again whenever the storage calls
    /// ``StorageContext/notifyStorageUpdated()`` (swift-state-graph 0.25's `_Stored(storage:)`).
    ///
    /// Every set counts as a change (see `init(name:storage:shouldNotify:file:line:column:)`); for an
    /// `Equatable` value, setting an equal one changes nothing.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - storage: Where the value is kept.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    public convenience init(name: String = "stored", storage: S, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, storage: storage, isEqual: nil, location: SourceLocation(file: file, line: line, column: column))
    }

    /// Creates a node kept in `storage` whose sets count as a change only when `shouldNotify`, given
    /// the value before and the value set, returns `true` (swift-state-graph 0.25's
    /// `_Stored(storage:shouldNotify:)`). A set that does not count changes nothing: the node keeps
    /// its value, no dependent is marked stale, nobody is notified and the storage is not given the
    /// value. (0.25 keeps the value set, without telling anyone: here the node's value and what its
    /// dependents computed from it never disagree.)
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - storage: Where the value is kept.
    ///   - shouldNotify: Whether a set of the second value over the first is a change.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    public convenience init(name: String = "stored", storage: S, shouldNotify: @escaping @Sendable (Value, Value) -> Bool,
                            file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, storage: storage, isEqual: { !shouldNotify($0, $1) },
                  location: SourceLocation(file: file, line: line, column: column))
    }

    /// Makes the node for any storage: memory, a suite, or the program's own.
    convenience init(name: String, storage: S, isEqual: ((Value, Value) -> Bool)?, location: SourceLocation) {
        if let memory = storage as? InMemoryStorage<Value> {
            self.init(name: name, value: memory.value, isEqual: isEqual, binding: nil, location: location)
        } else if let placed = storage as? any SuitePlacement<Value> {
            let name = placed.nodeName ?? name
            guard let binding = placed.makeBinding() else {
                self.init(name: name, value: placed.defaultValue, isEqual: isEqual, binding: nil, location: location)
                return
            }
            self.init(name: name, value: binding.loadInitialValue(), isEqual: isEqual, binding: binding, location: location)
            binding.entry.listen(self, forKey: binding.key)
            // A write between the first read and `listen` would otherwise go unnoticed.
            binding.reload(into: self)
        } else {
            let custom = CustomStorageBinding(storage: storage)
            self.init(name: name, value: custom.value, isEqual: isEqual, binding: nil, custom: custom, location: location)
            custom.attach(to: self)
        }
    }
}

extension StoredNode where Value: Equatable {
    /// Creates a node kept in `storage`; setting a value equal to the current one changes nothing.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - storage: Where the value is kept.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    public convenience init(name: String = "stored", storage: S, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, storage: storage, isEqual: { $0 == $1 }, location: SourceLocation(file: file, line: line, column: column))
    }
}

extension StoredNode where Value: AnyObject {
    /// Creates a node kept in `storage` holding an object; setting the same instance again changes nothing.
    public convenience init(name: String = "stored", storage: S, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, storage: storage, isEqual: { $0 === $1 }, location: SourceLocation(file: file, line: line, column: column))
    }
}

extension StoredNode where Value: Equatable & AnyObject {
    /// Creates a node kept in `storage` holding an `Equatable` object: setting an equal one changes nothing.
    public convenience init(name: String = "stored", storage: S, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, storage: storage, isEqual: { $0 == $1 }, location: SourceLocation(file: file, line: line, column: column))
    }
}
