import Foundation

/// A named deck. Cards refer to it by name.
struct Deck: Codable, Equatable, Identifiable, Sendable {
    var id: UUID
    var name: String
    var created: Date
}

/// One card: a prompt, its answer, and how the last review went.
struct Card: Codable, Equatable, Identifiable, Sendable {
    var id: UUID
    var deck: String
    var front: String
    var back: String
    var created: Date
    var reviews: Int
    var lastCorrect: Bool?
}

extension Card {
    /// Whether `answer` matches the back, ignoring case, accents and surrounding space.
    func accepts(_ answer: String) -> Bool {
        func normalized(_ s: String) -> String {
            s.trimmingCharacters(in: .whitespacesAndNewlines)
                .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        }
        return !answer.isEmpty && normalized(answer) == normalized(back)
    }
}
