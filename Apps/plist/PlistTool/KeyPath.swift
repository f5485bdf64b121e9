import Foundation
import PlistCodec

/// A plutil key path: keys separated by `.`, where a number applied to an array is an index.
///
/// `\.` is a literal dot inside a key (`CFBundleURLTypes.0.CFBundleURLSchemes` has three components,
/// `com\.example\.app` one).
struct KeyPath: Equatable, CustomStringConvertible {
    /// The components, unescaped.
    var components: [String]
    /// The key path as written on the command line.
    var description: String

    init(_ text: String) throws {
        description = text
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped { current.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; continue }
            if character == "." { parts.append(current); current = ""; continue }
            current.append(character)
        }
        if escaped { current.append("\\") }
        parts.append(current)
        components = parts
    }
}

/// A key path that names nothing, or a change a key path cannot make.
struct KeyPathError: Error, Equatable, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}

extension PlistValue {
    /// The value at `path`, or nil when a component names no key or index.
    func value(at path: KeyPath) -> PlistValue? {
        var current = self
        for component in path.components {
            guard let next = current.child(component) else { return nil }
            current = next
        }
        return current
    }

    private func child(_ component: String) -> PlistValue? {
        switch self {
        case .dictionary(let dictionary): return dictionary[component]
        case .array(let items):
            guard let index = Int(component), items.indices.contains(index) else { return nil }
            return items[index]
        default: return nil
        }
    }

    /// What a change does at the last component of its key path.
    enum Edit {
        /// `-insert`: the key must be new; a numeric component on an array inserts at that index.
        case insert
        /// `-insert ... -append`: the key path names an array; the value goes at its end.
        case append
        /// `-replace`: sets the value, whether or not one was there.
        case replace
        /// `-remove`: the value must exist.
        case remove
    }

    /// Applies `edit` with `newValue` at `path`.
    ///
    /// - Throws: `KeyPathError` when a component on the way names nothing, or the edit does not fit
    ///   what is there (inserting over a value, removing a missing one, appending to a non-array).
    mutating func apply(_ edit: Edit, _ newValue: PlistValue?, at path: KeyPath) throws {
        try apply(edit, newValue, path.components[...], path)
    }

    private mutating func apply(_ edit: Edit, _ newValue: PlistValue?, _ rest: ArraySlice<String>, _ path: KeyPath) throws {
        guard let component = rest.first else {
            // Only `-append` reaches the end of the path: the value here must be an array.
            guard case .array(var items) = self, let newValue else {
                throw KeyPathError("Value at [\(path)] is not an array")
            }
            items.append(newValue)
            self = .array(items)
            return
        }
        let isLast = rest.count == 1 && edit != .append
        switch self {
        case .dictionary(var dictionary):
            if isLast {
                let exists = dictionary[component] != nil
                switch edit {
                case .insert where exists: throw KeyPathError("Value already exists at key path \(path)")
                case .remove where !exists: throw KeyPathError("No value to remove at key path \(path)")
                default: dictionary[component] = edit == .remove ? nil : newValue
                }
            } else {
                guard var child = dictionary[component] else { throw KeyPathError("Key path not found \(path)") }
                try child.apply(edit, newValue, rest.dropFirst(), path)
                dictionary[component] = child
            }
            self = .dictionary(dictionary)
        case .array(var items):
            guard let index = Int(component), index >= 0 else { throw KeyPathError("Key path not found \(path)") }
            if isLast {
                switch edit {
                case .insert:
                    guard index <= items.count, let newValue else { throw KeyPathError("Key path not found \(path)") }
                    items.insert(newValue, at: index)
                case .replace:
                    guard index <= items.count, let newValue else { throw KeyPathError("Key path not found \(path)") }
                    if index == items.count { items.append(newValue) } else { items[index] = newValue }
                default:
                    guard index < items.count else { throw KeyPathError("No value to remove at key path \(path)") }
                    items.remove(at: index)
                }
            } else {
                guard index < items.count else { throw KeyPathError("Key path not found \(path)") }
                try items[index].apply(edit, newValue, rest.dropFirst(), path)
            }
            self = .array(items)
        default:
            throw KeyPathError("Key path not found \(path)")
        }
    }
}
