# The fuzz targets, read (sourced) by Fuzz/build and ci/fuzz. One entry per target:
#
#   name | library | sources | seeds | dictionary
#
# - library: a module built once with the fuzzer's instrumentation and linked in (`-` for none);
#   only PlistCodec is one, because four targets share it and it takes a minute to compile.
# - sources: compiled into the target's own module with Fuzz/Support/FuzzSupport.swift. Internal
#   types of a module the target needs (JSONPlistReader, DocumentStore's JSON parser) are reached by
#   compiling their files here, not by linking the module: DocumentStore's module needs GRDB, these
#   files do not.
# - seeds: which files of Fixtures/ seed the target, by content (Fuzz/collect-seeds); the target's
#   own hand-made seeds in Fuzz/Seeds/<name>/ are always added.
# - dictionary: a file in Fuzz/Dictionaries/ (`-` for none).
FUZZ_TARGETS=(
  "binary-plist|PlistCodec|Fuzz/Support/PlistExpansion.swift Fuzz/Support/PlistReaderChecks.swift Fuzz/Targets/BinaryPlist.swift|binary|binary-plist.dict"
  "xml-plist|PlistCodec|Fuzz/Support/PlistExpansion.swift Fuzz/Support/PlistReaderChecks.swift Fuzz/Targets/XMLPlist.swift|xml|xml-plist.dict"
  "openstep-plist|PlistCodec|Fuzz/Support/PlistExpansion.swift Fuzz/Support/PlistReaderChecks.swift Fuzz/Targets/OpenStepPlist.swift|openstep|openstep-plist.dict"
  "plist-decoder|PlistCodec|Fuzz/Support/PlistExpansion.swift Fuzz/Support/FuzzModel.swift Fuzz/Targets/PlistDecoderModel.swift|plist|xml-plist.dict"
  "plist-json|PlistCodec|Apps/plist/PlistTool/JSONPlistReader.swift Fuzz/Targets/PlistToolJSON.swift|none|json.dict"
  "document-json|-|Modules/DocumentStore/JSON.swift Modules/DocumentStore/JSONParser.swift Modules/DocumentStore/JSONConversions.swift Modules/DocumentStore/JSONValueDecoder.swift Modules/DocumentStore/DocumentStoreError.swift Fuzz/Support/FuzzModel.swift Fuzz/Targets/DocumentJSON.swift|none|json.dict"
)

# Splits one FUZZ_TARGETS entry into TARGET_NAME, TARGET_LIBRARY, TARGET_SOURCES, TARGET_SEEDS, TARGET_DICT.
fuzz_target_fields() {
  IFS='|' read -r TARGET_NAME TARGET_LIBRARY TARGET_SOURCES TARGET_SEEDS TARGET_DICT <<<"$1"
}
