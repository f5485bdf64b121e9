// shapes: Dali's shapes kept by DocumentStore. See ../README.md.
import ShapesKit

await ShapesCommand.runAsProgram()
