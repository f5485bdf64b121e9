/// The renames of one migration step (tables, or one table's columns), resolved as a permutation:
/// chains (`Beta` from `Alpha` while `Gamma` takes `Beta`), swaps and cycles come out the same whatever
/// order the declarations are in.
///
/// A declared rename `from → to` moves when `from` exists, it was not already applied by the model
/// the store records (`alreadyApplied`: a cycle looks the same before and after), and `to` is free or
/// is itself moving away. The moves go through temporary names in two passes, so no move ever meets
/// a name another one has not left yet.
struct RenamePlan: Equatable {
    /// One rename.
    struct Move: Hashable, Codable {
        let from: String
        let to: String
    }

    /// The renames that apply, in declaration order.
    let moves: [Move]

    /// The moves among `declared` that apply to a store whose names are `existing`.
    static func resolve(_ declared: [Move], existing: Set<String>, alreadyApplied: Set<Move> = []) -> RenamePlan {
        var claimed = Set<String>()
        var candidates: [Move] = []
        for move in declared where move.from != move.to && existing.contains(move.from) && !alreadyApplied.contains(move) {
            // Two declarations claiming one original: the first wins (the second's table is made new).
            guard claimed.insert(move.from).inserted else { continue }
            candidates.append(move)
        }
        // A move into a name that stays taken cannot happen; dropping it may free another (fixpoint).
        while true {
            let leaving = Set(candidates.map(\.from))
            let kept = candidates.filter { !existing.contains($0.to) || leaving.contains($0.to) }
            if kept.count == candidates.count { break }
            candidates = kept
        }
        return RenamePlan(moves: candidates)
    }

    var isEmpty: Bool { moves.isEmpty }

    /// Runs the moves: each source to a temporary name, then each temporary name to its target.
    func apply(temporaryName: (Int) -> String, rename: (_ from: String, _ to: String) throws -> Void) rethrows {
        for (index, move) in moves.enumerated() { try rename(move.from, temporaryName(index)) }
        for (index, move) in moves.enumerated() { try rename(temporaryName(index), move.to) }
    }
}
