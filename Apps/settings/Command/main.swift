// settings: swift-state-graph's settings models on StateGraph. See ../README.md.
import SettingsKit

await SettingsCommand.runAsProgram()
