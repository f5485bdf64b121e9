// profile: keeps a user profile in a @PersistedModel class. See ../README.md.
import ProfileKit

await ProfileCommand.runAsProgram()
