import Foundation

/// The self-checking text a writer loop sets (model-probe `set-loop`): version `n`'s text is a
/// function of `n`, so a reader can tell a whole version from a torn or mixed one.
public enum LoopValue {
    /// The text of `version`: `v<n>:` and then 4 KB that depend on `n`.
    public static func text(version: Int) -> String {
        var x = UInt64(bitPattern: Int64(version)) &* 0x9E37_79B9_7F4A_7C15
        let body = (0..<4096).map { _ -> Character in
            x ^= x >> 31
            x = x &* 0xBF58_476D_1CE4_E5B9
            return Character(Unicode.Scalar(UInt8(97 + x % 26)))
        }
        return "v\(version):" + String(body)
    }

    /// The version `text` claims, if it is a whole version's text.
    public static func version(of text: String) -> Int? {
        guard text.hasPrefix("v"), let colon = text.firstIndex(of: ":"),
              let n = Int(text[text.index(after: text.startIndex)..<colon]), text == self.text(version: n) else { return nil }
        return n
    }
}
