// PlistToolTests: placeholder
