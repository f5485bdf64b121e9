import Foundation
import StateGraph

// Models of the graph's own tests. The settings models of swift-state-graph's article are its own
// code, in OriginalExamples.swift.

/// A memory-only model: a diamond (`base` feeds `left` and `right`, both feed `sum`) and a branch.
final class DiamondModel: Sendable {
    @GraphStored var base: Int = 1
    @GraphStored var useLeft: Bool = true
    @GraphStored var other: Int = 100
    @GraphComputed var left: Int
    @GraphComputed var right: Int
    @GraphComputed var sum: String
    @GraphComputed var branch: Int

    init() {
        self.$left = .init { [$base] _ in $base.wrappedValue * 10 }
        self.$right = .init { [$base] _ in $base.wrappedValue * 100 }
        self.$sum = .init { [$left, $right] _ in "\($left.wrappedValue)+\($right.wrappedValue)" }
        self.$branch = .init { [$useLeft, $left, $other] _ in
            $useLeft.wrappedValue ? $left.wrappedValue : $other.wrappedValue
        }
    }
}

/// A model whose initializer assigns its graph properties (through the generated `init` accessor).
public final class InitializedModel: Sendable {
    @GraphStored public var name: String = "unset"
    @GraphStored public var nickname: String?
    @GraphStored public private(set) var visits: Int = 0
    @GraphComputed public var greeting: String

    public init(name: String, nickname: String?) {
        self.name = name
        self.nickname = nickname
        self.$greeting = .init { [$name, $nickname] _ in
            "Hello, \($nickname.wrappedValue ?? $name.wrappedValue)"
        }
    }

    public func visit() { visits += 1 }
}
