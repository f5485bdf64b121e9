import Foundation

/// Builds the `PlistValue` tree of an XML property list from `XMLPlistScanner`'s events.
///
/// Finished values wait on one stack (and keys on another) until their container closes; closing
/// moves the container's run of values into one array or dictionary, so nesting costs no recursion.
struct XMLPlistTreeSink: XMLPlistSink {
    /// The document's value, once its root element has closed.
    private(set) var root: PlistValue?
    private var values: [PlistValue] = []
    private var keys: [String] = []
    /// Where each open container's values and keys start on the stacks.
    private var open: [(isDict: Bool, valueStart: Int, keyStart: Int)] = []

    mutating func openContainer(isDictionary: Bool) {
        open.append((isDictionary, values.count, keys.count))
    }

    mutating func key(_ key: String) {
        keys.append(key)
    }

    mutating func value(_ value: PlistValue, end: Int) {
        add(value)
    }

    mutating func closeContainer(end: Int) {
        add(close())
    }

    /// Puts a finished value in its container, or makes it the root.
    mutating func add(_ value: PlistValue) {
        if open.isEmpty { root = value } else { values.append(value) }
    }

    /// Pops the innermost container and builds its value from the runs on the stacks. The scanner
    /// has checked that a dictionary has as many values as keys.
    mutating func close() -> PlistValue {
        let frame = open.removeLast()
        if !frame.isDict {
            let array = Array(values[frame.valueStart...])
            values.removeSubrange(frame.valueStart...)
            return .array(array)
        }
        defer {
            keys.removeSubrange(frame.keyStart...)
            values.removeSubrange(frame.valueStart...)
        }
        // CoreFoundation reads `<dict><key>CF$UID</key><integer>n</integer></dict>` as a keyed-archive UID.
        if keys.count - frame.keyStart == 1, ExactKey.same(keys[frame.keyStart], "CF$UID"),
           case .integer(let n) = values[frame.valueStart], let uid = UInt64(exactly: n.value) {
            return .uid(uid)
        }
        return .dictionary(XMLPlistReader.makeDictionary(keys: keys[frame.keyStart...],
                                                          values: values[frame.valueStart...]))
    }
}
