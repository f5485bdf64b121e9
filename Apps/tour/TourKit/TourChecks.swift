import Foundation
import Synchronization

/// A check inside a step that did not hold: what was expected and what happened.
struct TourFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}

/// Throws a `TourFailure` with `message` unless `condition` holds.
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw TourFailure(message()) }
}

/// Asks `condition` every `interval` milliseconds until it holds or `seconds` pass; returns whether
/// it held.
///
/// For what another instance or process does in its own time (a file watcher noticing a write). The
/// condition is asked once more at the deadline, so a slow last poll does not turn success into failure.
func waitFor(seconds: Double, every interval: Int = 1, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        if ContinuousClock.now >= deadline { return condition() }
        usleep(useconds_t(interval * 1_000))
    }
    return true
}

/// A counter an `@Sendable` observer closure can raise.
final class Flag: Sendable {
    private let value = Atomic<Int>(0)

    /// Adds one.
    func raise() { value.add(1, ordering: .relaxed) }

    /// How many times it was raised.
    var count: Int { value.load(ordering: .relaxed) }
}

/// A one-line description of `error`: Codable errors by their coding path and debug description
/// (their default description repeats the whole value), everything else as it describes itself.
func describe(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case EncodingError.invalidValue(_, let context):
        return "cannot encode the value at \(path(context.codingPath)): \(context.debugDescription)"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
         DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
        return "cannot decode at \(path(context.codingPath)): \(context.debugDescription)"
    default:
        return "\(error)"
    }
}

