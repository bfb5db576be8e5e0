import FleetWire
import Foundation
import Platform
import Settings

/// The keys of an `[upload.NAME]` section (docs/uploads.md): any number of sections, so
/// not rows of ``ConfigurationKey/all``, whose sections are fixed; declared once here for
/// the parser, its messages and airloc.conf(5).
///
/// Contract: a section's name is letters, digits, `-` and `_`; `sensor-<value>` is one
/// key per openSenseMap value (`sensor-pm2_5`). A key is applied to the section of its
/// name, created on its first key.
public struct UploadKey: Sendable {
    /// The key.
    public let name: String
    /// What its value must be.
    public let expected: String
    let apply: @Sendable (inout UploadSettings, String) -> Bool

    init(_ name: String, _ expected: String, _ apply: @escaping @Sendable (inout UploadSettings, String) -> Bool) {
        self.name = name
        self.expected = expected
        self.apply = apply
    }

    static func text(
        _ name: String, _ expected: String, _ set: @escaping @Sendable (inout UploadSettings, String) -> Void
    )
        -> UploadKey
    {
        UploadKey(name, expected) { settings, value in
            guard !value.isEmpty, value.count <= 200, !value.contains("\0") else { return false }
            set(&settings, value)
            return true
        }
    }

    /// The values an openSenseMap box may take, as `sensor-<value>` keys.
    public static let openSenseMapValues = [
        "pm1_0", "pm2_5", "pm4_0", "pm10", "temperature_c", "relative_humidity", "co2", "temperature", "humidity",
        "pressure",
    ]

    /// Every key an `[upload.NAME]` section takes.
    public static let all: [UploadKey] =
        [
            UploadKey("type", UploadSettings.Kind.allCases.map(\.rawValue).joined(separator: ", ")) { settings, value in
                guard let kind = UploadSettings.Kind(rawValue: value) else { return false }
                settings.type = kind
                return true
            },
            UploadKey("url", "an http(s) URL, or mqtt(s)://host[:port] for owntracks-mqtt") { settings, value in
                guard value.hasPrefix("http://") || value.hasPrefix("https://") || MQTTSettings.broker(value) != nil,
                    URL(string: value)?.host != nil
                else { return false }
                settings.url = value
                return true
            },
            text("credentials-file", "a file path (mode 0600)") { $0.credentialsFile = $1 },
            text("user", "the OwnTracks user") { $0.user = $1 },
            text("device", "the OwnTracks device") { $0.device = $1 },
            text("id", "Traccar's device identifier") { $0.id = $1 },
            text("box", "the openSenseMap box id") { $0.box = $1 },
            UploadKey("position", "exact, coarse or none") { settings, value in
                guard let position = MQTTSettings.Position(rawValue: value) else { return false }
                settings.position = position
                return true
            },
            UploadKey("max-age", "a duration with d, h, m or s (e.g. 15m); 0 sends every row") { settings, value in
                guard let seconds = ConfigurationFiles.parseRetention(value), seconds >= 0 else { return false }
                settings.maxAge = seconds
                return true
            },
            UploadKey("flagged", "skip or send") { settings, value in
                guard value == "skip" || value == "send" else { return false }
                settings.sendFlagged = value == "send"
                return true
            },
            UploadKey("batch", "rows per request, 1-2500") { settings, value in
                guard let number = Int(value), (1...2500).contains(number) else { return false }
                settings.batch = number
                return true
            },
        ]
        + openSenseMapValues.map { value in
            text("sensor-\(value)", "the openSenseMap sensor id of \(value)") { $0.sensors[value] = $1 }
        }

    /// Applies `key = value` of section `[upload.NAME]`; an error in the file's words.
    static func apply(section: String, key: String, value: String, at: String, to settings: inout Settings)
        throws(ConfigurationError)
    {
        let name = String(section.dropFirst("upload.".count))
        guard !name.isEmpty, name.count <= 40,
            name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.union(.init(charactersIn: "-_")).contains($0) })
        else {
            throw ConfigurationError("\(at): [\(section)]: an upload's name is letters, digits, - and _")
        }
        guard let upload = all.first(where: { $0.name == key }) else {
            let hint = suggestion(for: key, among: all.map(\.name)).map { " (did you mean '\($0)'?)" }
            throw ConfigurationError("\(at): unknown key '\(key)' in [\(section)]\(hint ?? "")")
        }
        var entry = settings.uploads.first { $0.name == name } ?? UploadSettings(name: name)
        guard upload.apply(&entry, value) else {
            throw ConfigurationError(
                "\(at): invalid value '\(value)' for \(key) in [\(section)]: expected \(upload.expected)")
        }
        if let index = settings.uploads.firstIndex(where: { $0.name == name }) {
            settings.uploads[index] = entry
        } else {
            settings.uploads.append(entry)
        }
    }
}
