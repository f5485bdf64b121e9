import PlistCodec
