import ModelPersistence

// DocumentData's example, as its article publishes it (a plain class, `@PersistedIgnore`), for the
// `some-model-show` and `some-model-set` commands. `OriginalExamplesTests` declares the same class.
@PersistedModel
class SomeModel {
    var string: String
    var bool: Bool
    @PersistedIgnore
    var bool2: Bool

    init(string: String, bool: Bool, bool2: Bool) {
        self.string = string
        self.bool = bool
        self.bool2 = bool2
    }
}
