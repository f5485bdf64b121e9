import Foundation
import ManagedStorage
import Testing

/// A raw-value enum with no case for `""` and not `CaseIterable`: no value a new object could start with.
enum DiaryMood: String, StorageAttribute {
    case happy, sad
}

@StorageEntity
final class Diary {
    var title: String
    var mood: DiaryMood
}

@StorageEntity
final class DefaultedDiary {
    var title: String
    @Attribute(default: DiaryMood.sad)
    var mood: DiaryMood
}

/// An attribute type with no default value: the model is refused at open with an error naming the
/// property, instead of the program stopping in `storageDefault`'s precondition (it did, as soon as
/// the model was resolved); a declared default makes it usable.
@Suite struct AttributeDefaultTests {
    @Test func anAttributeWithNoDefaultIsRefusedAtOpenNamingIt() {
        #expect {
            _ = try SQLiteStorageManager.inMemory(model: StorageModel(entities: [Diary.self]), name: "diary")
        } throws: { error in
            guard case StorageError.model(let message) = error else { return false }
            return message.contains("Diary.mood") && message.contains("DiaryMood") && message.contains("CaseIterable")
        }
    }

    @MainActor @Test func aDeclaredDefaultIsWhatANewObjectStartsWithAndWhatIsRead() async throws {
        let manager = try SQLiteStorageManager.inMemory(model: StorageModel(entities: [DefaultedDiary.self]), name: "defaulted")
        try await manager.write { storage in
            let diary = storage.insertNewObject(ofType: DefaultedDiary.self)
            diary.title = "Monday"
        }
        let moods = manager.viewStorage.allObjects(ofType: DefaultedDiary.self, matching: nil, sortedBy: nil).map(\.mood)
        #expect(moods == [.sad])
    }
}
