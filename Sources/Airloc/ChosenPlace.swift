import Foundation
import Geo
import Platform
import Settings

/// The place the user chose (`airloc use`, or Enter in the picker): the manual location
/// the provider chain falls back to and the point search ranks namesakes around.
///
/// Contract: kept in `$XDG_STATE_HOME/airloc/place` as `key=value` lines, private to the
/// user (0600) and written atomically. A missing file means no choice; a damaged one is
/// ignored (as if none), never a crash, never a made-up location. It takes precedence
/// over `[location]` in the configuration files, and `--lat/--lon` over it.
public struct ChosenPlace: Sendable, Equatable {
    /// GeoNames id; 0 for a coordinate the user gave.
    public var id: Int
    /// The place's name.
    public var name: String
    /// "Berlin, Berlin, Germany".
    public var displayName: String
    /// Where it is.
    public var coordinate: Coordinate
    /// ISO 3166 alpha-2.
    public var countryCode: String
    /// When it was chosen.
    public var chosenAt: Date

    /// `place`, chosen at `date`.
    public init(place: Place, at date: Date = Date()) {
        id = place.id
        name = place.name
        displayName = place.displayName
        coordinate = place.coordinate
        countryCode = place.countryCode
        chosenAt = date
    }

    /// A choice as it was kept.
    public init(id: Int, name: String, displayName: String, coordinate: Coordinate, countryCode: String, chosenAt: Date)
    {
        self.id = id
        self.name = name
        self.displayName = displayName
        self.coordinate = coordinate
        self.countryCode = countryCode
        self.chosenAt = chosenAt
    }

    /// As a ``Place`` for a report (time zone and region come from the place data).
    public var place: Place {
        Place(id: id, name: name, coordinate: coordinate, countryCode: countryCode)
    }

    /// The file in `stateDirectory` that holds the choice.
    public static func file(in stateDirectory: URL) -> URL { stateDirectory.appendingPathComponent("place") }

    /// The choice kept in `stateDirectory`; nil when there is none or it is damaged.
    public static func load(from stateDirectory: URL) -> ChosenPlace? {
        guard let text = try? String(contentsOf: file(in: stateDirectory), encoding: .utf8) else { return nil }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let latitude = values["latitude"].flatMap(Double.init),
            let longitude = values["longitude"].flatMap(Double.init),
            let coordinate = try? Coordinate(latitude: latitude, longitude: longitude),
            let name = values["name"], !name.isEmpty
        else { return nil }
        return ChosenPlace(
            id: values["id"].flatMap(Int.init) ?? 0, name: name, displayName: values["display_name"] ?? name,
            coordinate: coordinate, countryCode: values["country_code"] ?? "",
            chosenAt: Date(timeIntervalSince1970: values["chosen_at"].flatMap(Double.init) ?? 0))
    }

    /// Keeps this choice in `stateDirectory`, replacing any earlier one.
    public func save(in stateDirectory: URL) throws(FileError) {
        let target = Self.file(in: stateDirectory)
        // Names come from the place data or the user; a line break would forge a key.
        func clean(_ text: String) -> String { String(text.filter { $0 != "\n" && $0 != "\r" }.prefix(200)) }
        let text = """
            id=\(id)
            name=\(clean(name))
            display_name=\(clean(displayName))
            latitude=\(coordinate.latitude)
            longitude=\(coordinate.longitude)
            country_code=\(clean(countryCode))
            chosen_at=\(Int(chosenAt.timeIntervalSince1970))

            """
        try AtomicFile.write(Data(text.utf8), to: target)
    }

    /// Forgets the choice (nothing to do when there is none).
    public static func clear(in stateDirectory: URL) throws(FileError) {
        try AtomicFile.remove(file(in: stateDirectory))
    }
}

extension Settings {
    /// The place chosen with `airloc use`, if any (read from the state directory).
    public var chosenPlace: ChosenPlace? { ChosenPlace.load(from: directories.state) }
}
