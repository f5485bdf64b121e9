#!/usr/bin/env python3
"""Writes the malformed property lists in this folder, and README.md describing them.

Deterministic: the same script always writes the same bytes. Run it from anywhere:

    python3 Fixtures/PlistCodec/invalid/make-invalid.py

Every case is (file name, bytes, what is wrong, expected PlistError.Kind). The kind column of the
README table is the single source of truth that Tests/PlistCodecTests/InvalidInputTests.swift reads;
"a or b" means either kind is accepted (a count can be rejected as out of range or as truncated).
Files are written with no other changes: the folder's .gitattributes marks them binary.
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------
# A tiny binary plist assembler: objects are given as already-encoded bytes, references as 1 byte
# unless a case says otherwise. Every field of the trailer can be overridden.


def bplist(objects, ref_size=1, offset_size=None, num_objects=None, top=0, table_offset=None,
           offsets=None, magic=b"bplist00", unused=b"\0" * 6):
    out = bytearray(magic)
    real_offsets = []
    for obj in objects:
        real_offsets.append(len(out))
        out += obj
    offsets = real_offsets if offsets is None else offsets
    table = len(out)
    if offset_size is None:
        offset_size = max(1, (max(offsets + [table]).bit_length() + 7) // 8)
    for off in offsets:
        out += off.to_bytes(8, "big")[8 - offset_size:] if offset_size <= 8 else off.to_bytes(offset_size, "big")
    out += unused + bytes([offset_size & 0xFF, ref_size & 0xFF])
    out += struct.pack(">QQQ", len(objects) if num_objects is None else num_objects, top,
                       table if table_offset is None else table_offset)
    return bytes(out)


def count(marker, n):
    """A marker byte with its length nibble, or nibble F followed by an int object."""
    if n < 15:
        return bytes([marker | n])
    return bytes([marker | 0xF]) + integer(n)


def integer(v):
    u = v & 0xFFFFFFFFFFFFFFFF
    for code, width in ((0, 1), (1, 2), (2, 4), (3, 8)):
        if u < (1 << (8 * width)) or width == 8:
            return bytes([0x10 | code]) + u.to_bytes(width, "big")


def ascii(s):
    return count(0x50, len(s)) + s.encode("ascii")


def array(*refs, ref_size=1):
    return count(0xA0, len(refs)) + b"".join(r.to_bytes(ref_size, "big") for r in refs)


def dictionary(keys, values, ref_size=1):
    return count(0xD0, len(keys)) + b"".join(r.to_bytes(ref_size, "big") for r in list(keys) + list(values))


VALID = bplist([array(1, 2), ascii("a"), integer(1)])  # ["a", 1]: 50 bytes
TRAILER = len(VALID) - 32

# ---------------------------------------------------------------------------------------------
# Text helpers

XML_HEAD = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
            b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
            b'"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n')


def xml(body, close=True):
    return XML_HEAD + body + (b"\n</plist>\n" if close else b"")


def nested_arrays_binary(depth):
    objects = [array(i + 1, ref_size=2) for i in range(depth - 1)] + [array(ref_size=2)]
    return bplist(objects, ref_size=2)


def fanout_bomb(levels):
    """Object 0 is [1, bad]; object i is [i+1, i+1], so naive expansion visits 2^levels arrays."""
    objects = [array(1, levels + 2)]
    objects += [array(i + 1, i + 1) for i in range(1, levels + 1)]
    objects += [array(), b"\x70"]
    return bplist(objects)


HUGE = 1 << 40

# Files that Foundation's `PropertyListSerialization` (CoreFoundation, Swift 6.3.1 on Linux) accepts
# anyway, with what it returns. The project rejects them: each loses or invents data.
FOUNDATION_ACCEPTS = {
    "bin_header_only.plist": "the OpenStep string `bplist00`",
    "bin_ascii_high_byte.plist": "`AÃB` (the byte read as Latin-1)",
    "bin_utf16_lone_high_surrogate.plist": "`a` + U+FFFD",
    "bin_utf16_lone_low_surrogate.plist": "U+FFFD + `a`",
    "bin_dict_key_not_string.plist": "a dictionary with the integer key 7",
    "xml_bad_date_month_13.plist": "2021-01-01 (month 13 rolls over)",
    "xml_key_in_array.plist": "`[\"a\"]` (the key read as a string)",
    "xml_text_after_root.plist": "`a` (the trailing text ignored)",
    "os_unterminated_comment.plist": "an empty dictionary",
    "os_bad_escape_surrogate.plist": "`a` + U+FFFD + `b`",
    "bin_shared_fanout_2_62.plist": "nothing: it copies every shared array, so it does not return "
                                    "(20 levels took 0.6 s; this file ran past a 20 s deadline)",
}

def fanout(levels):
    """`levels` arrays, each holding the next one twice, the last holding an empty array: a file of a
    few hundred bytes whose value has 2^(levels + 1) - 1 entries once each shared array is counted
    wherever it is referenced."""
    return bplist([bytes([0xA2, i + 1, i + 1]) for i in range(levels)] + [b"\xa0"])


# What `ci/fuzz binary-plist` found (a 10 s timeout in the target's comparison of the value it read
# with itself): about 60 levels of the same fan-out, among mutated bytes.
FANOUT_FOUND = bytes.fromhex(
    "62706c6973743030a2013ea20202a20303a20404a20505a20606a20707a20808a20909a20a0aa20b0ba20c0ca20d0da2"
    "0e0ea20f0fa21010a21111a21212a21313a21414a21515a21616a21717a21818a21919a21a1aa21b1ba21c1ca21d1da2"
    "1e1ea21f1fa22020a22121614e65676174697665496e74a22626a22727a22828a22929a22a2aa22b2ba22c2ca22d2da2"
    "2e2ea22f2fa23030a23131a23232a23333a23434a23535a23636a23737a23838a23939a23a3aa23b3ba23c3ca23d3da0"
    "70080b0e1114171a1d202326292c2f3235383b3e4144474a4d505356595c5f6265686b6e7174777a2b7d808386898c8f"
    "9295989b9e5da4a7aaadb0b3b6b9bcbfc00000000000000101000000000000003f000000000000000000000000000000"
    "c1"
)

# What `ci/fuzz binary-plist` found (a trap): 8-byte object references, one of them above Int.max.
REF_ABOVE_INT_MAX_FOUND = bytes.fromhex(
    "62706c6973743030d60161466e457468657265213ed31f20212223245161516251631011234040400000000000a32526"
    "2710011002547465a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a7a2a2a2"
    "a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2"
    "a2a2a2a2a2a2a2a2a2a27874233fe0000000006f10a52a2b2c232d51415142100ca325262e100313ffffffed5fa0e000"
    "13ffffffffffff62696e6173636969556c6174694e53636a6c55676465650e0f101112517f61008061fffd61e00062db"
    "ffdfff535d5d3e50d6141516170f6b5661737472616c554564676573556b657965645f535d5d3e50d61e515a51615162"
    "61d0e962d83dde0010051002100110031006100408151b21252c3239597081929a9c9fa2a5aaaeafbcbeffffff12ccce"
    "d0d2d40000000000000108000000000000001f000000000000000000000000000000d6"
)

CASES = [
    # --- binary: header and trailer ---------------------------------------------------------
    ("bin_header_only.plist", b"bplist00",
     "only the 8-byte header: no objects, no trailer", "truncated"),
    ("bin_shorter_than_trailer.plist", VALID[:8] + VALID[TRAILER:TRAILER + 20],
     "header followed by the first 20 bytes of a trailer", "truncated"),
    ("bin_trailer_cut.plist", VALID[:-12],
     "a valid file with the last 12 bytes of its trailer cut off", "truncated"),
    ("bin_bad_version.plist", b"bplist15" + VALID[8:],
     "magic `bplist15` (a format this reader does not know)", "unknownFormat"),
    ("bin_offset_size_0.plist", VALID[:TRAILER + 6] + b"\x00" + VALID[TRAILER + 7:],
     "trailer offsetIntSize is 0", "malformed"),
    ("bin_offset_size_9.plist", VALID[:TRAILER + 6] + b"\x09" + VALID[TRAILER + 7:],
     "trailer offsetIntSize is 9 (more than 8)", "malformed"),
    ("bin_ref_size_0.plist", VALID[:TRAILER + 7] + b"\x00" + VALID[TRAILER + 8:],
     "trailer objectRefSize is 0", "malformed"),
    ("bin_ref_size_9.plist", VALID[:TRAILER + 7] + b"\x09" + VALID[TRAILER + 8:],
     "trailer objectRefSize is 9 (more than 8)", "malformed"),
    ("bin_ref_size_too_small.plist",
     bplist([array(1, 2)] + [integer(i) for i in range(299)], ref_size=1),
     "300 objects but 1-byte object references (can address only 256)", "outOfRange"),
    ("bin_num_objects_0.plist", bplist([array()], num_objects=0),
     "trailer numObjects is 0", "malformed"),
    ("bin_top_object_out_of_range.plist", bplist([array(1, 2), ascii("a"), integer(1)], top=3),
     "trailer topObject is 3 but there are 3 objects", "outOfRange"),
    ("bin_offset_table_past_end.plist", bplist([array(1, 2), ascii("a"), integer(1)], table_offset=200),
     "offsetTableOffset 200 is past the end of a 50-byte file", "outOfRange"),
    ("bin_offset_table_in_header.plist", bplist([array(1, 2), ascii("a"), integer(1)], table_offset=4),
     "offsetTableOffset 4 is inside the `bplist00` header", "outOfRange"),
    ("bin_offset_table_overflow.plist",
     bplist([array(1, 2), ascii("a"), integer(1)], table_offset=0xFFFFFFFFFFFFFFF0),
     "offsetTableOffset 2^64-16 (overflows when the table size is added)", "outOfRange"),
    ("bin_num_objects_overflow.plist",
     bplist([array()], offset_size=8, ref_size=8, num_objects=1 << 62),
     "numObjects 2^62 with 8-byte offsets (the table size overflows 64 bits)", "outOfRange"),
    ("bin_offset_table_into_trailer.plist", bplist([array(1, 2), ascii("a"), integer(1)], num_objects=20),
     "numObjects 20: the offset table would run into the trailer", "outOfRange"),
    # --- binary: object offsets and references ------------------------------------------------
    ("bin_object_offset_below_8.plist", bplist([array(1, 2), ascii("a"), integer(1)], offsets=[8, 3, 13]),
     "object 1 has offset 3, inside the header", "outOfRange"),
    ("bin_object_offset_in_offset_table.plist",
     bplist([array(1, 2), ascii("a"), integer(1)], offsets=[8, 16, 13]),
     "object 1 has offset 16, inside the offset table", "outOfRange"),
    ("bin_object_offset_in_trailer.plist", bplist([array(1, 2), ascii("a"), integer(1)], offsets=[8, 30, 13]),
     "object 1 has offset 30, inside the trailer", "outOfRange"),
    ("bin_object_offset_past_end.plist", bplist([array(1, 2), ascii("a"), integer(1)], offsets=[8, 250, 13]),
     "object 1 has offset 250, past the end of the file", "outOfRange"),
    ("bin_array_ref_out_of_range.plist", bplist([array(1, 200), ascii("a")]),
     "array element refers to object 200 of 2", "outOfRange"),
    ("bin_dict_key_ref_out_of_range.plist", bplist([dictionary([9], [1]), ascii("a")]),
     "dictionary key refers to object 9 of 2", "outOfRange"),
    ("bin_cycle_array_contains_itself.plist", bplist([array(0)]),
     "array whose only element is itself", "cycle"),
    ("bin_cycle_dict_value_is_ancestor.plist",
     bplist([dictionary([1], [2]), ascii("k"), array(3), dictionary([1], [0])]),
     "{k: [{k: <the root>}]}: a dictionary value points back to the root dictionary", "cycle"),
    # --- binary: counts --------------------------------------------------------------------------
    ("bin_string_count_2_40.plist", bplist([array(1), count(0x50, HUGE) + b"abc"]),
     "ASCII string claims 2^40 bytes", "outOfRange or truncated"),
    ("bin_utf16_count_2_62.plist", bplist([array(1), count(0x60, 1 << 62) + b"\0a"]),
     "UTF-16 string claims 2^62 code units (2^63 bytes: overflows Int64)", "outOfRange or truncated"),
    ("bin_data_count_2_40.plist", bplist([array(1), count(0x40, HUGE) + b"abc"]),
     "data claims 2^40 bytes", "outOfRange or truncated"),
    ("bin_array_count_2_40.plist", bplist([count(0xA0, HUGE) + b"\x01\x01", integer(1)]),
     "array claims 2^40 elements", "outOfRange or truncated"),
    ("bin_dict_count_2_40.plist", bplist([count(0xD0, HUGE) + b"\x01\x01", ascii("k")]),
     "dictionary claims 2^40 entries", "outOfRange or truncated"),
    ("bin_count_int64_max.plist", bplist([b"\xAF\x13" + (2**63 - 1).to_bytes(8, "big") + b"\x01"]),
     "array count via the F nibble: an 8-byte int equal to Int64.max", "outOfRange or truncated"),
    ("bin_count_negative.plist", bplist([b"\xAF\x13" + b"\xff" * 8 + b"\x01"]),
     "array count via the F nibble: an 8-byte int equal to -1", "outOfRange or truncated"),
    ("bin_count_not_an_int.plist", bplist([array(1), b"\x5F\x22\x41\x20\x00\x00abc"]),
     "string count nibble F followed by a float (0x22) instead of an int", "malformed"),
    ("bin_data_past_end.plist", bplist([array(1), b"\x4F\x10\xFF" + bytes(10)]),
     "data claims 255 bytes; 10 follow before the offset table", "truncated"),
    # --- binary: depth ---------------------------------------------------------------------------
    ("bin_depth_1000.plist", nested_arrays_binary(1000),
     "arrays nested 1000 deep (default maxDepth is 512)", "tooDeep"),
    ("bin_fanout_bomb.plist", fanout_bomb(60),
     "[A1, bad] where each Ai = [Ai+1, Ai+1] 60 levels down: 2^60 paths if shared objects are "
     "re-read; fails quickly: A1 passes the default maxValueCount before the walk reaches `bad` "
     "(marker 0x70), which is refused as malformed, as quickly, when the limit is lifted", "tooLarge"),
    # --- binary: objects -------------------------------------------------------------------------
    ("bin_utf16_lone_high_surrogate.plist", bplist([array(1), b"\x62\x00\x61\xD8\x00"]),
     "UTF-16 string `a` + U+D800 (high surrogate with no low surrogate)", "invalidString"),
    ("bin_utf16_lone_low_surrogate.plist", bplist([array(1), b"\x62\xDC\x00\x00\x61"]),
     "UTF-16 string U+DC00 + `a` (low surrogate first)", "invalidString"),
    ("bin_ascii_high_byte.plist", bplist([array(1), b"\x53\x41\xC3\x42"]),
     "ASCII string (`5n`) with byte 0xC3", "invalidString"),
    ("bin_bad_marker_70.plist", bplist([array(1), b"\x70"]),
     "unknown marker byte 0x70", "malformed"),
    ("bin_bad_marker_f0.plist", bplist([array(1), b"\xF0"]),
     "unknown marker byte 0xF0", "malformed"),
    ("bin_int_32_bytes.plist", bplist([array(1), b"\x15" + bytes(32)]),
     "int marker 0x15 (2^5 = 32 bytes wide)", "malformed"),
    ("bin_real_2_bytes.plist", bplist([array(1), b"\x21\x3c\x00"]),
     "real marker 0x21 (2-byte float)", "malformed"),
    ("bin_date_4_bytes.plist", bplist([array(1), b"\x32\x00\x00\x00\x00"]),
     "date marker 0x32 (dates are always 0x33)", "malformed"),
    ("bin_dict_key_not_string.plist", bplist([dictionary([1], [2]), integer(7), ascii("v")]),
     "dictionary whose key is the integer 7", "malformed"),
    ("bin_dict_key_array.plist", bplist([dictionary([1], [2]), array(), ascii("v")]),
     "dictionary whose key is an empty array", "malformed"),
    # --- XML ------------------------------------------------------------------------------------
    ("empty.plist", b"", "empty file (0 bytes)", "truncated"),
    ("xml_prolog_only.plist", XML_HEAD[:39], "only the `<?xml ...?>` declaration", "truncated"),
    ("xml_unclosed_dict.plist", xml(b"<dict>\n\t<key>a</key>\n\t<string>b</string>\n", close=False),
     "`<dict>` and `<plist>` never closed", "truncated"),
    ("xml_unclosed_string.plist", xml(b"<string>abc", close=False),
     "`<string>` never closed: the file ends in its text", "truncated"),
    ("xml_mismatched_close.plist", xml(b"<array>\n\t<string>a</string>\n</dict>"),
     "`<array>` closed by `</dict>`", "malformed"),
    ("xml_unknown_tag.plist", xml(b"<array>\n\t<number>1</number>\n</array>"),
     "unknown element `<number>`", "malformed"),
    ("xml_key_without_value.plist", xml(b"<dict>\n\t<key>a</key>\n</dict>"),
     "`<key>` with no value before `</dict>`", "malformed"),
    ("xml_value_without_key.plist", xml(b"<dict>\n\t<string>a</string>\n</dict>"),
     "a `<string>` in a `<dict>` where a `<key>` belongs", "malformed"),
    ("xml_key_in_array.plist", xml(b"<array>\n\t<key>a</key>\n</array>"),
     "`<key>` inside an `<array>`", "malformed"),
    ("xml_two_values.plist", xml(b"<string>a</string>\n<string>b</string>"),
     "two values inside `<plist>`", "malformed"),
    ("xml_text_after_root.plist", xml(b"<string>a</string>") + b"trailing text\n",
     "text after `</plist>`", "malformed"),
    ("xml_unterminated_comment.plist", xml(b"<!-- a comment that never ends\n<string>a</string>", close=False),
     "`<!--` with no `-->`", "truncated"),
    ("xml_bad_entity.plist", xml(b"<string>fish &chips;</string>"),
     "unknown entity `&chips;`", "malformed"),
    ("xml_char_ref_surrogate.plist", xml(b"<string>&#xD800;</string>"),
     "character reference to a surrogate, `&#xD800;`", "invalidString"),
    ("xml_bad_utf8.plist", xml(b"<string>caf\xC3\x28</string>"),
     "invalid UTF-8: 0xC3 followed by `(`", "invalidString"),
    ("xml_bad_utf8_overlong.plist", xml(b"<string>\xC0\xAF</string>"),
     "overlong UTF-8 encoding of `/` (0xC0 0xAF)", "invalidString"),
    ("xml_bad_base64_non_ascii.plist", xml("<data>\n\tQUJD\u00e9\n</data>".encode("utf-8")),
     "`<data>` holding `é` (Foundation also rejects non-ASCII in base64)", "invalidBase64"),
    ("xml_bad_date_month_13.plist", xml(b"<date>2020-13-01T00:00:00Z</date>"),
     "date with month 13", "invalidDate"),
    ("xml_bad_date_missing_z.plist", xml(b"<date>2020-01-01T00:00:00</date>"),
     "date without the trailing `Z`", "invalidDate"),
    ("xml_bad_date_garbage.plist", xml(b"<date>yesterday</date>"),
     "date `yesterday`", "invalidDate"),
    ("xml_bad_integer.plist", xml(b"<integer>12a</integer>"),
     "integer `12a`", "invalidNumber"),
    ("xml_integer_too_big.plist", xml(b"<integer>340282366920938463463374607431768211456</integer>"),
     "integer 2^128 (does not fit in 128 bits)", "invalidNumber"),
    ("xml_empty_integer.plist", xml(b"<integer></integer>"),
     "empty `<integer></integer>`", "invalidNumber"),
    ("xml_bad_real.plist", xml(b"<real>1.2.3</real>"),
     "real `1.2.3`", "invalidNumber"),
    ("xml_depth_600.plist", xml(b"<array>" * 600 + b"</array>" * 600),
     "arrays nested 600 deep (default maxDepth is 512)", "tooDeep"),
    ("bin_ref_above_int_max.plist", bplist([b"\xa1" + b"\xff" * 8], ref_size=8),
     "an array whose one 8-byte object reference is 2^64 - 1, above Int.max", "outOfRange"),
    ("bin_ref_above_int_max_found.plist", REF_ABOVE_INT_MAX_FOUND,
     "found by `ci/fuzz binary-plist` (the reader trapped converting the reference to Int): 8-byte "
     "references among mutated bytes, one above Int.max", "outOfRange"),
    # --- binary: expanded size (PlistReadOptions.maxValueCount) ---------------------------------
    ("bin_shared_fanout_2_62.plist", fanout(61),
     "61 arrays, each holding the next twice: 2^62 - 1 values once shared arrays are expanded "
     "(default maxValueCount is 2^26)", "tooLarge"),
    ("bin_shared_fanout_found.plist", FANOUT_FOUND,
     "found by `ci/fuzz binary-plist`: about 60 levels of arrays holding the next one twice, among mutated "
     "bytes (2^60 values expanded); comparing or writing the value it read never ended", "tooLarge"),
    # --- OpenStep -------------------------------------------------------------------------------
    ("os_unterminated_string.plist", b'{ a = "abc; }\n',
     "quoted string never closed", "truncated"),
    ("os_unterminated_dict.plist", b"{ a = b;\n", "`{` never closed", "truncated"),
    ("os_unterminated_array.plist", b"( a, b\n", "`(` never closed", "truncated"),
    ("os_unterminated_comment.plist", b"/* no end\n( a )\n", "`/*` with no `*/`", "truncated"),
    ("os_missing_equals.plist", b"{ a b; }\n", "dictionary entry without `=`", "malformed"),
    ("os_missing_semicolon.plist", b"{ a = b }\n", "dictionary entry without `;`", "malformed"),
    ("os_missing_value.plist", b"{ a = ; }\n", "dictionary entry with no value after `=`", "malformed"),
    ("os_bad_hex.plist", b"<0fzz>\n", "data `<0fzz>` with non-hex digits", "malformed"),
    ("os_odd_hex.plist", b"<0fb>\n", "data `<0fb>` with an odd number of hex digits", "malformed"),
    ("os_bad_escape_surrogate.plist", b'( "a\\UD800b" )\n',
     "escape `\\UD800`: a lone surrogate", "invalidString"),
    ("os_trailing_garbage.plist", b"( a ) )\n", "a second `)` after the root value", "malformed"),
    ("os_depth_600.plist", b"(" * 600 + b")" * 600 + b"\n",
     "arrays nested 600 deep (default maxDepth is 512)", "tooDeep"),
]


# Foundation reads these, and so does PlistValue(parsing:) by default; strict reading
# (PlistReadOptions.strict, `plist -lint -strict`) refuses them with the kind in CASES. They are
# written to ../tolerated/. A dictionary key that is not a string is read by Foundation too, but the
# value model (string keys) cannot hold it, so that file stays here, refused in every mode.
KEPT_INVALID = {
    "bin_dict_key_not_string.plist":
        "`PlistValue` dictionaries have string keys, as `PropertyListDecoder`'s do: a non-string key has no "
        "place to go, and dropping it would lose data",
    "bin_shared_fanout_2_62.plist":
        "reading shares each array, but everything after (comparing, writing, converting, decoding) walks "
        "2^62 values: `PlistReadOptions.maxValueCount` refuses it while checking the file",
}
TOLERATED_DIR = os.path.join(HERE, "..", "tolerated")


def write_folder(folder, cases):
    os.makedirs(folder, exist_ok=True)
    names = [c[0] for c in cases]
    for existing in os.listdir(folder):
        if existing.endswith(".plist") and existing not in names:
            os.remove(os.path.join(folder, existing))
    for name, data, _, _ in cases:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


def main():
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names)), "duplicate file names"
    for name in FOUNDATION_ACCEPTS:
        assert name in names, name
    tolerated = [c for c in CASES if c[0] in FOUNDATION_ACCEPTS and c[0] not in KEPT_INVALID]
    invalid = [c for c in CASES if c not in tolerated]
    write_folder(HERE, invalid)
    write_folder(TOLERATED_DIR, tolerated)
    lines = [
        "# Malformed property lists",
        "",
        "Written by `make-invalid.py` (run `python3 Fixtures/PlistCodec/invalid/make-invalid.py`; it is",
        "deterministic and rewrites this README and `../tolerated/`). Every file must make",
        "`PlistValue(parsing:)` and `PlistDecoder` throw a `PlistError` of the kind below, with a location (a",
        "byte offset for binary files, a line and column for text), in the default and in strict mode.",
        "`InvalidInputTests` reads the `expected kind` column of this table: it is the single source of",
        "truth. `a or b` accepts either kind. Files that Foundation reads are in `../tolerated/`.",
        "",
        "| file | what is wrong | expected kind |",
        "|---|---|---|",
    ]
    for name, data, what, kind in invalid:
        lines.append(f"| `{name}` | {what.replace('|', '&#124;')} ({len(data)} bytes) | `{kind}` |")
    lines += [
        "",
        "## Read by Foundation, refused here",
        "",
        "Checked with `PropertyListSerialization.propertyList(from:format:)` (CoreFoundation's reader) on Linux,",
        "Swift 6.3.1. Every other file here is rejected by it too.",
        "",
        "| file | Foundation returns | why it stays refused |",
        "|---|---|---|",
    ]
    for name in sorted(KEPT_INVALID):
        lines.append(f"| `{name}` | {FOUNDATION_ACCEPTS[name]} | {KEPT_INVALID[name]} |")
    lines.append("")
    with open(os.path.join(HERE, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines))
    tl = [
        "# Property lists Foundation tolerates",
        "",
        "Written by `../invalid/make-invalid.py`. Each file breaks a rule of its format, and Foundation",
        "(`PropertyListSerialization`, CoreFoundation's reader, on Linux, Swift 6.3.1) reads it anyway, as",
        "the last column says. `PlistValue(parsing:)` reads each the same way by default; with",
        "`PlistReadOptions(strict: true)` (`plist -lint -strict`) it throws the strict kind.",
        "`ToleratedInputTests` reads this table and compares the default result with Foundation's.",
        "",
        "| file | what is wrong | strict kind | Foundation returns |",
        "|---|---|---|---|",
    ]
    for name, data, what, kind in tolerated:
        tl.append(f"| `{name}` | {what.replace('|', '&#124;')} ({len(data)} bytes) | `{kind}` | {FOUNDATION_ACCEPTS[name]} |")
    tl.append("")
    with open(os.path.join(TOLERATED_DIR, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(tl))
    print(f"wrote {len(invalid)} invalid and {len(tolerated)} tolerated files")


if __name__ == "__main__":
    main()
