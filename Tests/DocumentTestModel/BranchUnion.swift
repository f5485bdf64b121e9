import DocumentStore

/// How the DocumentSync tests' conflict resolvers merge: every key of every branch, the current
/// branch's values first (so a merge keeps what each side wrote, and the test can see it).
public enum BranchUnion {
    public static func merge(current: JSON, others: [JSON]) -> JSON {
        var merged: [String: JSON] = [:]
        for other in others { if case .object(let fields) = other { merged.merge(fields) { a, _ in a } } }
        if case .object(let fields) = current { merged.merge(fields) { _, b in b } }
        return .object(merged)
    }
}
