/// A stored node kept under a key of a defaults suite (swift-state-graph 0.25's `UserDefaultsStored`):
/// a ``StoredNode`` whose storage is a ``UserDefaultsStorage``.
///
/// ```swift
/// let theme = UserDefaultsStored(key: "theme", defaultValue: "light")
/// let fontSize = UserDefaultsStored(suite: "com.example.reader", key: "fontSize", defaultValue: 14.0)
/// ```
public typealias UserDefaultsStored<Value: UserDefaultsStorable> = StoredNode<Value, UserDefaultsStorage<Value>>

extension StoredNode where S == UserDefaultsStorage<Value>, Value: UserDefaultsStorable {
    /// A node kept under `key` of the standard suite (`GraphStorageLocation`), `defaultValue` while
    /// the suite has none (swift-state-graph's `UserDefaultsStored(key:defaultValue:)`).
    ///
    /// - Parameters:
    ///   - name: A name for descriptions; the key when omitted.
    ///   - key: The suite's key.
    ///   - defaultValue: The value while the suite has none for the key.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    public convenience init(name: String? = nil, key: String, defaultValue: Value,
                            file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name ?? key, backing: .userDefaults(key: key), defaultValue: defaultValue, isEqual: { $0 == $1 },
                  location: SourceLocation(file: file, line: line, column: column))
    }

    /// A node kept under `key` of the suite `suite` (swift-state-graph's
    /// `UserDefaultsStored(suite:key:defaultValue:)`).
    public convenience init(name: String? = nil, suite: String, key: String, defaultValue: Value,
                            file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name ?? key, backing: .userDefaults(suite: suite, key: key), defaultValue: defaultValue,
                  isEqual: { $0 == $1 }, location: SourceLocation(file: file, line: line, column: column))
    }
}
