// airloc-example-logger: where am I, and what is the air like here — every few minutes,
// one JSON line per reading. A starting point for a Swift field-logging program; it uses
// only the AirlocKit library (no command-line code).
//
//   swift run airloc-example-logger --lat 52.52 --lon 13.405 --count 1
//   swift run airloc-example-logger --every 300          (senses: needs `airloc auth grant --always`)
//
// It reads the same configuration as airloc (/etc/airloc/airloc.conf, ~/.config/airloc/
// airloc.conf, AIRLOC_* variables), so AIRLOC_AIR_QUALITY_URL points it at a test double.

import AirQuality
import Airloc
import Configuration
import Foundation
import Gazetteer
import Geo
import Settings

/// The options: --lat/--lon (optional), --every SECONDS (default 300), --count N.
struct Options {
    var coordinate: Coordinate?
    var every: Double = 300
    var count: Int?

    init(_ arguments: [String]) throws {
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let name = arguments[index]
            guard ["--lat", "--lon", "--every", "--count"].contains(name), index + 1 < arguments.count else {
                throw UsageError("usage: airloc-example-logger [--lat DEG --lon DEG] [--every SECONDS] [--count N]")
            }
            values[name] = arguments[index + 1]
            index += 2
        }
        if let lat = values["--lat"], let lon = values["--lon"] {
            guard let latitude = Double(lat), let longitude = Double(lon),
                let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
            else { throw UsageError("--lat/--lon: degrees, -90...90 and -180...180") }
            self.coordinate = coordinate
        } else if values["--lat"] != nil || values["--lon"] != nil {
            throw UsageError("--lat and --lon go together")
        }
        if let text = values["--every"] {
            guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                throw UsageError("--every: seconds")
            }
            every = seconds
        }
        if let text = values["--count"] {
            guard let count = Int(text), count > 0 else { throw UsageError("--count: a positive number") }
            self.count = count
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One line of output.
struct Reading: Encodable {
    var time: String
    var latitude: Double
    var longitude: Double
    var provider: String
    var place: String?
    var usAQI: Int?
    var category: String?
    var pollutants: [String: Double]
    var error: String?

    enum CodingKeys: String, CodingKey {
        case time, latitude, longitude, provider, place, category, pollutants, error
        case usAQI = "us_aqi"
    }

    init(_ report: AirReport) {
        time = ISO8601DateFormatter().string(from: report.generatedAt)
        latitude = report.fix.coordinate.latitude
        longitude = report.fix.coordinate.longitude
        provider = report.provider
        place = report.place?.place.displayName
        switch report.air {
        case .success(let air):
            usAQI = air.usAQI
            category = air.category.name
            pollutants = Dictionary(uniqueKeysWithValues: air.concentrations.map { ($0.key.rawValue, $0.value) })
        case .failure(let failure):
            pollutants = [:]
            error = failure.description
        }
    }
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("airloc-example-logger: \(message)\n".utf8))
    exit(status)
}

let environment = ProcessInfo.processInfo.environment
let options: Options
do { options = try Options(Array(CommandLine.arguments.dropFirst())) } catch { fail("\(error)", status: 64) }

// 1. Settings from the usual files and environment, and the offline place data.
var settings: Settings
do { settings = try ConfigurationFiles.load(environment: environment, explicitPath: nil) } catch {
    fail(error.message, status: 78)
}
if let coordinate = options.coordinate {
    settings.givenCoordinate = (coordinate, "--lat/--lon")
}
let gazetteer: Gazetteer
do { gazetteer = try PlaceData.load(environment: environment) } catch { fail(error.description, status: 72) }

// 2. A session that never prompts: a logger runs unattended, so sensing needs the
//    "always" grant (`airloc auth grant --always`); given coordinates need none.
let session = LocationSession(settings: settings, gazetteer: gazetteer, prompter: NeverPrompt(), unattended: true)

// 3. Locate, report, print; again after `every` seconds.
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
var readings = 0
while options.count.map({ readings < $0 }) ?? true {
    do {
        let location = try await session.locate()
        let report = await AirReport.make(
            fix: location.fix, provider: location.provider, attempts: location.attempts, accuracy: location.accuracy,
            settings: settings, gazetteer: gazetteer, request: AirReport.Request(climate: false))
        let line = try encoder.encode(Reading(report))
        print(String(decoding: line, as: UTF8.self))
    } catch let error as LocationSessionError {
        FileHandle.standardError.write(Data("airloc-example-logger: \(error)\n".utf8))
        if !error.isRetryable { exit(error.isAuthorization ? 77 : 69) }
    }
    readings += 1
    if let count = options.count, readings >= count { break }
    try await Task.sleep(for: .seconds(options.every))
}
