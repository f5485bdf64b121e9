import Foundation

extension PlistValue {
    /// How many values this value holds, itself included: every scalar, array and dictionary
    /// (dictionary keys are not values), a container that appears in several places counted at each.
    ///
    /// It is what `PlistReadOptions.maxValueCount` bounds when a file is read, and what comparing,
    /// writing or decoding the value walks. Counting stops once it passes `limit` and returns
    /// `limit + 1`, so a value that shares its containers into an enormous expansion is counted
    /// quickly.
    ///
    /// ```swift
    /// let value: PlistValue = .dictionary(["a": .array([.int(1), .int(2)])])
    /// value.valueCount()          // 4
    /// value.valueCount(limit: 2)  // 3: more than 2
    /// ```
    public func valueCount(limit: Int = .max) -> Int {
        var count = 0
        func visit(_ value: PlistValue) -> Bool {
            count += 1
            guard count <= limit else { return false }
            switch value {
            case .array(let items): return items.allSatisfy(visit)
            case .dictionary(let entries): return entries.values.allSatisfy(visit)
            default: return true
            }
        }
        _ = visit(self)
        return count
    }
}
