// tour: runs every sample scenario end to end in a fresh data folder. See ../README.md.
import TourKit

await Tour.runAsProgram()
