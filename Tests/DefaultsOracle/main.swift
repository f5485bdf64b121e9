// defaults-oracle: asks Foundation's own `UserDefaults` on this machine what each typed getter returns
// for each value in `DefaultsOracleCase.all`, for FileStorageKit's differential test.
//
//     defaults-oracle SUITE      prints "<case>\t<string>\t<integer>\t<double>\t<float>\t<bool>\t<url>" per case
//
// The test runs it with HOME and XDG_CONFIG_HOME pointing into a temporary folder (the child's
// environment only), so Foundation's preferences never touch the real ones. It never calls
// `set(nil, forKey:)` (spins forever here) nor `url(forKey:)` on data (crashes here).
import Foundation
import TestSupport

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let defaults = UserDefaults(suiteName: arguments.first!) else {
    FileHandle.standardError.write(Data("usage: defaults-oracle SUITE\n".utf8))
    exit(2)
}
for (name, stored) in DefaultsOracleCase.all {
    switch stored {
    case .bool(let v): defaults.set(v, forKey: name)
    case .int(let v): defaults.set(v, forKey: name)
    case .double(let v): defaults.set(v, forKey: name)
    case .float(let v): defaults.set(v, forKey: name)
    case .string(let v): defaults.set(v, forKey: name)
    case .date(let v): defaults.set(v, forKey: name)
    case .data(let v): defaults.set(v, forKey: name)
    }
    var fields = [name]
    fields.append(DefaultsOracleCase.format(defaults.string(forKey: name)))
    fields.append(DefaultsOracleCase.format(defaults.integer(forKey: name)))
    fields.append(DefaultsOracleCase.format(defaults.double(forKey: name)))
    fields.append(DefaultsOracleCase.format(defaults.float(forKey: name)))
    fields.append(DefaultsOracleCase.format(defaults.bool(forKey: name)))
    if case .data = stored {
        fields.append("skipped")
    } else {
        fields.append(DefaultsOracleCase.format(defaults.url(forKey: name)))
    }
    print(fields.joined(separator: "\t"))
}
if let date = defaults.object(forKey: "date") as? Date {
    print("date-roundtrip\t\(date.timeIntervalSinceReferenceDate.bitPattern)")
}
