extension PlistTool {
    /// The `-help` text: plutil's layout (command options first, then the other options), our words.
    static let usage = """
        plist: [command_option] [other_options] file...
        A file named '-' is standard input.
        Command options (the default is -lint):
         -help                         print this text and exit
         -lint                         check each property list file and report OK or the first error
         -p                            print each property list for people to read (not a stable format)
         -convert fmt                  rewrite each file in format fmt: xml1 binary1 json swift objc
                                       (-header with objc is accepted and ignored)
         -insert keypath -type value   add a value at keypath, then write the file back
                                       keypath: keys separated by '.', where a number applied to an array is an index,
                                       or, as the last component, the position to insert at; '\\.' is a dot inside a key
                                       -type: -bool -integer -float -string -date -data -xml -json, each followed by a value,
                                       or -array or -dictionary for an empty container (no value)
                                       -append after the value: keypath names an array and the value goes at its end
         -replace keypath -type value  like -insert, but set the value whether or not one is there
         -remove keypath               delete the value at keypath, then write the file back
         -extract keypath fmt          print the value at keypath as a property list in format fmt: xml1 binary1 json raw
                                       -expect type: fail unless the value has that type
                                       (bool integer float string date data dictionary array)
                                       raw prints the bare value:
                                           bool         true or false
                                           integer      its digits
                                           float        its digits
                                           string       its UTF-8 text
                                           date         RFC 3339, UTC
                                           data         base64
                                           dictionary   one key per line
                                           array        the number of elements
                                       the result goes to standard output unless -o is given
         -type keypath                 print the type of the value at keypath (-expect type as with -extract)
         -create fmt                   write an empty dictionary in format fmt to each file ('-' for standard output)
        Other options (for -convert, -insert, -replace, -remove, -extract and -type):
         -s                            print nothing on success
         -o path                       write the result to path instead ('-' for standard output);
                                       with several files, each overwrites the last
         -e extension                  write each result beside its input with this extension
         -r                            indent JSON output for reading
         -n                            no newline after a raw -extract value or a -type name
         -strict                       refuse what Foundation reads anyway (text after the root, a <key>
                                       in an array, month 13, non-ASCII bytes in an ASCII string, ...)
         --                            every later argument is a file name

        """
}
