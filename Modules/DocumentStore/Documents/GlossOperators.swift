import Foundation

infix operator ~~> : JSONDecodingPrecedence

/// A one-field JSON object `{key: value}`, or `nil` when `value` is `nil`: Gloss's encoding operator,
/// for `jsonify`. A dotted key nests (`"size.width"` gives `{"size": {"width": …}}`), as `<~~` reads it.
///
/// ```swift
/// try to.save(self, json: jsonify(["labels" ~~> labels, "weight" ~~> weight])!)
/// ```
public func ~~> <T: JSONRepresentable>(key: String, value: T?) -> JSON? {
    guard let value else { return nil }
    var json = value.jsonValue
    for part in key.split(separator: ".", omittingEmptySubsequences: false).reversed() {
        json = .object([String(part): json])
    }
    return json
}

/// The fields of several objects in one (nested objects merged, a later value winning over an earlier
/// one); `nil` entries are left out. Gloss's `jsonify`; never `nil` here, but optional as Gloss's was.
public func jsonify(_ fields: [JSON?]) -> JSON? {
    var merged: [String: JSON] = [:]
    for case .object(let object)? in fields { merge(object, into: &merged) }
    return .object(merged)
}

private func merge(_ object: [String: JSON], into merged: inout [String: JSON]) {
    for (key, value) in object {
        if case .object(let inner) = value, case .object(var existing)? = merged[key] {
            merge(inner, into: &existing)
            merged[key] = .object(existing)
        } else {
            merged[key] = value
        }
    }
}
