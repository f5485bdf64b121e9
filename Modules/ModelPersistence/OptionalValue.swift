/// Lets a generic field tell an `Optional` that is `nil` from any other value.
protocol OptionalValue {
    var isNone: Bool { get }
    static var noneValue: Self { get }
}

extension Optional: OptionalValue {
    var isNone: Bool { self == nil }
    static var noneValue: Self { nil }
}
