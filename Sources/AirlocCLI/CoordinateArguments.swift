import Arguments
import Geo

/// Parses `--lat`/`--lon` (or positional LAT LON) into a validated coordinate.
///
/// Contract: both or neither; text that is not a finite number, or a number out of
/// range, is a usage error naming the valid range — never clamped.
enum CoordinateArguments {
    /// `--lat DEG --lon DEG`, declared once for every command that takes a coordinate.
    static let specs: [OptionSpec] = [
        .lat.withNext(),
        .lon,
    ]

    /// The coordinate `--lat/--lon` give, if any.
    static func parse(_ arguments: ParsedArguments, command: String) throws(CLIError) -> Coordinate? {
        try parse(latitude: arguments.value(.lat), longitude: arguments.value(.lon), command: command)
    }

    static func parse(latitude: String?, longitude: String?, command: String) throws(CLIError) -> Coordinate? {
        switch (latitude, longitude) {
        case (nil, nil):
            return nil
        case (nil, _):
            throw .usage("--lon needs --lat as well", command: command)
        case (_, nil):
            throw .usage("--lat needs --lon as well", command: command)
        case (let lat?, let lon?):
            let latValue = try number(lat, what: "latitude", range: "-90...90", command: command)
            let lonValue = try number(lon, what: "longitude", range: "-180...180", command: command)
            do {
                return try Coordinate(latitude: latValue, longitude: lonValue)
            } catch {
                throw .usage(error.description, command: command)
            }
        }
    }

    private static func number(_ text: String, what: String, range: String, command: String) throws(CLIError) -> Double
    {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // Double("0x10") is 16 and Double("1e1") is 10: neither is how a coordinate is
        // written, and a script's typo must not land somewhere else.
        let decimal = trimmed.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }
        guard decimal, let value = Double(trimmed), value.isFinite else {
            throw .usage("invalid \(what) '\(text)': expected decimal degrees in \(range)", command: command)
        }
        return value
    }
}
