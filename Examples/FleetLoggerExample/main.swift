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
import FieldLog
import Fleet
import Foundation
import Gazetteer
import Geo
import Logbook
import Platform

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

// A logger runs unattended: sensing needs `airloc auth grant --always`; coordinates do not.
let session = LocationSession(settings: settings, gazetteer: gazetteer, prompter: NeverPrompt(), unattended: true)
let following: LocationSession.Following
do { following = try session.follow() } catch { fail("\(error)", status: 77) }

// The logbook, the publisher (nil without [mqtt] url), the logger, and the service that runs
// them in the right order.
do {
    let logbook = try Logbook(
        url: settings.logDatabase, outbox: FleetPublisher.publishes(settings),
        collector: FleetPublisher.awaitsCollector(settings))
    let publisher = try FleetPublisher.make(settings: settings, logbook: logbook)
    if let publisher { say("publishing to \(publisher.destination)") }
    // Every notice, the logger's and the publisher's: "warning: ...", "mqtt: ...".
    let logger = FieldLogger(
        logbook: logbook, settings: settings, gazetteer: gazetteer, accuracy: following.accuracy,
        notify: { say("\($0)") })
    let outcome = await SignalWatch.untilInterrupted {
        await LoggingService(logger: logger, publisher: publisher, notify: { say("\($0)") }).run(following)
    }
    say("stopped after \(outcome.written.track) track points and \(outcome.written.air) air readings")
    if let refused = outcome.refused { fail("the broker refused the credentials: \(refused)", status: 78) }
} catch {
    fail("\(error)", status: 74)
}
