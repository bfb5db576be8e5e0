import Foundation
import Gazetteer
import Geo
import Logbook

/// The data files airloc opens, damaged: the gazetteer (its header, tables and trees
/// checked before anything is read) and a logbook (SQLite's own checks, then airloc's
/// reading of its rows for `log status` and every export format).
enum FileFuzzing {
    static let targets = [
        FuzzTarget("gazetteer-file", "a gazetteer.bin, opened, searched, asked the nearest place and a postal code") {
            bytes in
            let file = FuzzInput.file("gazetteer.bin", bytes)
            guard let gazetteer = try? Gazetteer(path: file.path) else { return }
            for query in ["ber", "Sao Paulo", "x"] { _ = gazetteer.search(query, limit: 5) }
            for coordinate in [
                Coordinate(uncheckedLatitude: 52.5, longitude: 13.4), .init(uncheckedLatitude: -33.9, longitude: 151.2),
            ] {
                if let nearest = gazetteer.nearest(to: coordinate) {
                    precondition(nearest.distance.isFinite && nearest.distance >= 0, "a distance that is no distance")
                }
            }
            for code in gazetteer.countryCodes.prefix(3) {
                _ = gazetteer.postalFormat(countryCode: code)
                _ = gazetteer.postalPlaces(countryCode: code, prefix: "1", limit: 3)
            }
        },
        FuzzTarget("logbook-file", "a logbook file, opened read-only: its status and every export") { bytes in
            let file = FuzzInput.file("logbook.sqlite", bytes)
            defer {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    try? FileManager.default.removeItem(atPath: file.path + suffix)
                }
            }
            guard let logbook = try? Logbook(url: file, readOnly: true) else { return }
            _ = try? logbook.status(now: Date(timeIntervalSince1970: 1_796_000_000))
            _ = try? logbook.latestTrackPoint()
            _ = try? logbook.latestAirRecord()
            _ = try? logbook.latestSensorRecord()
            for format in LogExport.Format.allCases {
                _ = try? LogExport.write(logbook, format: format, kind: .all, window: LogWindow()) { _ in }
            }
        },
    ]
}
