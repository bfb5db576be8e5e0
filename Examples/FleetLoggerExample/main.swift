// airloc-example-fleet-logger: the field logger with its MQTT publisher, from the
// AirlocKit library alone — what `airloc log run` does, in a program of your own. Rows go
// into the logbook ([log] database) and, with [mqtt] url set, to the broker (docs/fleet.md).
//
//   AIRLOC_MQTT_URL=mqtt://127.0.0.1:1883 swift run airloc-example-fleet-logger --lat 52.52 --lon 13.405
//
// SIGTERM or Ctrl-C stops it: the row being written is finished and what was written is
// published first. It reads the same configuration as airloc.

import Airloc
import Configuration
import Foundation
import Gazetteer
import Geo
import LoggerStation
import Platform
import Settings

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("airloc-example-fleet-logger: \(message)\n".utf8))
    exit(status)
}
func say(_ message: String) { FileHandle.standardError.write(Data("airloc-example-fleet-logger: \(message)\n".utf8)) }

let environment = ProcessInfo.processInfo.environment
var settings: Settings
do { settings = try ConfigurationFiles.load(environment: environment, explicitPath: nil) } catch {
    fail(error.message, status: 78)
}
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 4, arguments[0] == "--lat", arguments[2] == "--lon", let lat = Double(arguments[1]),
    let lon = Double(arguments[3]), let coordinate = try? Coordinate(latitude: lat, longitude: lon)
{
    settings.givenCoordinate = (coordinate, "--lat/--lon")
} else if !arguments.isEmpty {
    fail("usage: airloc-example-fleet-logger [--lat DEG --lon DEG]", status: 64)
}
let gazetteer: Gazetteer
do { gazetteer = try PlaceData.load(environment: environment) } catch { fail(error.description, status: 72) }

// Everything `airloc log run` holds, held the same way: the always grant (a logger runs
// unattended; coordinates given need none), one logger per logbook, the sensors' ports, the
// publisher (with [mqtt] url) and the uploads ([upload.NAME]). Every notice goes to stderr.
let station: LoggerStation
do { station = try LoggerStation(settings: settings, gazetteer: gazetteer) { say("\($0)") } } catch {
    switch error {
    case .notAuthorized: fail(error.description, status: 77)
    case .lock: fail(error.description, status: 75)
    case .configuration: fail(error.description, status: 78)
    default: fail(error.description, status: 74)
    }
}
for line in station.announcements { say(line) }
let outcome = await station.run()
say("stopped after \(outcome.written.track) track points and \(outcome.written.air) air readings")
if let refused = outcome.refused { fail("the broker refused the credentials: \(refused)", status: 78) }
