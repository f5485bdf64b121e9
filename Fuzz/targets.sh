# The fuzz targets, read (sourced) by ci/fuzz. One entry per target:
#
#   name | seeds | dictionary
#
# - name: an executable of the Fuzz package (Fuzz/Package.swift says what it is built from).
# - seeds: which files of Fixtures/ seed the target, by content (Fuzz/collect-seeds); the target's
#   own hand-made seeds in Fuzz/Seeds/<name>/ are always added.
# - dictionary: a file in Fuzz/Dictionaries/ (`-` for none).
FUZZ_TARGETS=(
  "binary-plist|binary|binary-plist.dict"
  "xml-plist|xml|xml-plist.dict"
  "openstep-plist|openstep|openstep-plist.dict"
  "plist-decoder|plist|xml-plist.dict"
  "plist-json|none|json.dict"
  "document-json|none|json.dict"
)

# Splits one FUZZ_TARGETS entry into TARGET_NAME, TARGET_SEEDS, TARGET_DICT.
fuzz_target_fields() {
  IFS='|' read -r TARGET_NAME TARGET_SEEDS TARGET_DICT <<<"$1"
}
