import Foundation

/// Builds the `PlistValue` of each object from `BinaryPlistWalker`'s events, keeping every finished
/// object by index, so an object referenced many times (a shared key or string) is decoded once and
/// a shared container is shared, not built again.
///
/// This was the binary reader until `BinaryPlistTreeBuilder` (a checking walk, then a build without
/// checks) replaced it; it stays as the one-pass reference the builder is tested against.
struct BinaryPlistTreeSink: BinaryPlistSink {
    /// Every finished object by index; sized by the object count, which was checked against the
    /// file's length. Objects not finished yet hold a placeholder.
    private var objects: [PlistValue]
    /// The open containers, each gathering its entries.
    private var open: [Container] = []

    private struct Container {
        var isDict: Bool
        var count: Int
        var keys: [String]
        var values: [PlistValue]
    }

    init(objectCount: Int) {
        objects = [PlistValue](repeating: .bool(false), count: objectCount)
    }

    /// Object `index`, once the walk has finished it.
    func object(_ index: Int) -> PlistValue { objects[index] }

    var expandsSharedObjects: Bool { false }

    mutating func scalar(_ value: PlistValue, object: Int) {
        objects[object] = value
        add(value)
    }

    mutating func shared(object: Int) {
        add(objects[object])
    }

    mutating func openContainer(object: Int, isDictionary: Bool, count: Int) {
        var container = Container(isDict: isDictionary, count: count, keys: [], values: [])
        if isDictionary { container.keys.reserveCapacity(count) }
        container.values.reserveCapacity(count)
        open.append(container)
    }

    func valueOrder(count: Int) -> Range<Int> { 0..<count }

    mutating func closeContainer(object: Int) {
        let container = open.removeLast()
        let value: PlistValue = container.isDict
            ? .dictionary(PlistDictionary(container.keys, container.values)) : .array(container.values)
        objects[object] = value
        add(value)
    }

    /// Adds a finished object to the innermost open container: a dictionary takes its keys first.
    private mutating func add(_ value: PlistValue) {
        let last = open.count - 1
        guard last >= 0 else { return }
        if open[last].isDict, open[last].keys.count < open[last].count {
            // The walker stops at the first key that is not a string, right after this call.
            if case .string(let key) = value { open[last].keys.append(key) }
        } else {
            open[last].values.append(value)
        }
    }
}

extension PlistDictionary {
    /// Builds a dictionary from a file's parallel key and value lists; a repeated key keeps its first
    /// position and its last value.
    init(_ keys: [String], _ values: [PlistValue]) {
        var seen = Set<ExactString>()
        seen.reserveCapacity(keys.count)
        var unique = true
        for k in keys where !seen.insert(ExactString(value: k)).inserted { unique = false; break }
        if unique {
            self.init(uniqueKeys: keys, values: values)
        } else {
            self.init(zip(keys, values).map { ($0, $1) })
        }
    }
}
