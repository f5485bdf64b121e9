import Foundation
import ManagedStorage
import ManagedTestModel
import Testing

/// Live results as a table view holds them: section names and each section's order ids.
struct TableSnapshot: Equatable, CustomStringConvertible {
    var sections: [(name: String, ids: [Int64])]

    static func == (a: TableSnapshot, b: TableSnapshot) -> Bool {
        // Names as bytes: "\u{E9}" and "e\u{301}" are two sections, though Swift calls the strings equal.
        a.sections.map { Array($0.name.utf8) } == b.sections.map { Array($0.name.utf8) } && a.sections.map(\.ids) == b.sections.map(\.ids)
    }

    var description: String {
        sections.map { "\($0.name.isEmpty ? "-" : $0.name): \($0.ids)" }.joined(separator: " | ")
    }

    /// The controller's sections now.
    @MainActor
    init(_ controller: ResultsController<Order>) {
        sections = controller.sections.map { ($0.name, $0.objects.map(\.orderID)) }
    }

    init(sections: [(name: String, ids: [Int64])]) {
        self.sections = sections
    }
}

/// One batch of callbacks, between `onWillChangeContent` and `onDidChangeContent`.
struct CallbackBatch {
    var sections: [(name: String, index: Int, type: ResultsChangeType)] = []
    var objects: [(id: Int64, old: IndexPath?, type: ResultsChangeType, new: IndexPath?)] = []
}

/// Records a controller's callbacks in batches, checking that they arrive in the right frame.
@MainActor
final class CallbackRecorder {
    private(set) var batches: [CallbackBatch] = []
    private var current: CallbackBatch?
    private(set) var resets = 0
    private(set) var misplaced: [String] = []

    init(_ controller: ResultsController<Order>) {
        controller.onWillChangeContent = { [unowned self] in
            if current != nil { misplaced.append("onWillChangeContent inside a batch") }
            current = CallbackBatch()
        }
        controller.onDidChangeSection = { [unowned self] info, index, type in
            guard current != nil else { return misplaced.append("onDidChangeSection outside a batch") }
            current?.sections.append((info.name, index, type))
        }
        controller.onDidChangeObject = { [unowned self] object, old, type, new in
            guard current != nil else { return misplaced.append("onDidChangeObject outside a batch") }
            current?.objects.append((object.orderID, old, type, new))
        }
        controller.onDidChangeContent = { [unowned self] in
            guard let batch = current else { return misplaced.append("onDidChangeContent without onWillChangeContent") }
            batches.append(batch)
            current = nil
        }
        controller.onDidResetContent = { [unowned self] in resets += 1 }
    }

    /// The batches recorded since the last call.
    func take() -> [CallbackBatch] {
        defer { batches.removeAll() }
        return batches
    }
}

/// Applies one batch to `before` by the rules a table view's batch update enforces, or says which rule
/// it breaks: deletions, reloads and move sources name distinct index paths of `before`; insertions
/// and move destinations name distinct index paths of the result; no reload or move touches a
/// section being deleted or inserted; every section's count adds up.
func applyBatch(_ batch: CallbackBatch, to before: TableSnapshot) -> Result<TableSnapshot, BatchViolation> {
    func fail(_ message: String) -> Result<TableSnapshot, BatchViolation> { .failure(BatchViolation(message: message, batch: batch)) }
    let deletedSections = batch.sections.filter { $0.type == .delete }.map(\.index)
    let insertedSections = batch.sections.filter { $0.type == .insert }.map(\.index)
    guard batch.sections.allSatisfy({ $0.type == .delete || $0.type == .insert }) else { return fail("a section change that is neither insert nor delete") }
    guard Set(deletedSections).count == deletedSections.count, deletedSections.allSatisfy({ $0 >= 0 && $0 < before.sections.count }) else {
        return fail("section deletions \(deletedSections) are not distinct sections of \(before.sections.count)")
    }
    let newSectionCount = before.sections.count - deletedSections.count + insertedSections.count
    guard Set(insertedSections).count == insertedSections.count, insertedSections.allSatisfy({ $0 >= 0 && $0 < newSectionCount }) else {
        return fail("section insertions \(insertedSections) are not distinct sections of \(newSectionCount)")
    }
    var sources = Set<IndexPath>(), destinations = Set<IndexPath>()
    for change in batch.objects {
        if change.type != .insert {
            guard let old = change.old, old.section < before.sections.count, old.section >= 0,
                  old.row >= 0, old.row < before.sections[old.section].ids.count else {
                return fail("\(change.type) of \(change.id) names \(change.old.map { "\($0)" } ?? "nil"), not a row before")
            }
            guard sources.insert(old).inserted else { return fail("\(old) is named twice before") }
            guard before.sections[old.section].ids[old.row] == change.id else {
                return fail("\(change.type) of \(change.id) at \(old), where \(before.sections[old.section].ids[old.row]) was")
            }
            if change.type != .delete && deletedSections.contains(old.section) {
                return fail("\(change.type) of \(change.id) out of section \(old.section), which is being deleted")
            }
        }
        if change.type == .insert || change.type == .move {
            guard let new = change.new, new.section >= 0, new.section < newSectionCount, new.row >= 0 else {
                return fail("\(change.type) of \(change.id) to \(change.new.map { "\($0)" } ?? "nil")")
            }
            guard destinations.insert(new).inserted else { return fail("\(new) is named twice after") }
            if change.type == .move && insertedSections.contains(new.section) {
                return fail("move of \(change.id) into section \(new.section), which is being inserted")
            }
        }
    }
    // Remove, then insert, in the table view's order.
    var remaining: [(name: String, ids: [Int64])?] = before.sections.map { Optional($0) }
    for change in batch.objects where change.type == .delete || change.type == .move {
        remaining[change.old!.section]!.ids[change.old!.row] = -1
    }
    for index in deletedSections { remaining[index] = nil }
    var sections = remaining.compactMap { $0 }.map { (name: $0.name, ids: $0.ids.filter { $0 != -1 }) }
    for section in batch.sections.filter({ $0.type == .insert }).sorted(by: { $0.index < $1.index }) {
        sections.insert((section.name, []), at: section.index)
    }
    let placed = batch.objects.filter { $0.type == .insert || $0.type == .move }.sorted { $0.new! < $1.new! }
    for change in placed {
        let path = change.new!
        guard path.row <= sections[path.section].ids.count else {
            return fail("\(change.type) of \(change.id) to \(path), past the end of its section")
        }
        sections[path.section].ids.insert(change.id, at: path.row)
    }
    // Reloads name where the object is after the batch.
    let result = TableSnapshot(sections: sections)
    for change in batch.objects where change.type == .update {
        guard let new = change.new, new.section < sections.count, new.row < sections[new.section].ids.count,
              sections[new.section].ids[new.row] == change.id else {
            return fail("update of \(change.id) says it is at \(change.new.map { "\($0)" } ?? "nil") after")
        }
    }
    return .success(result)
}

struct BatchViolation: Error, CustomStringConvertible {
    let message: String
    let batch: CallbackBatch
    var description: String {
        "\(message); sections \(batch.sections.map { "\($0.type)@\($0.index)" }), objects \(batch.objects.map { "\($0.type) \($0.id) \($0.old.map { "\($0)" } ?? "-")→\($0.new.map { "\($0)" } ?? "-")" })"
    }
}

