// swift-tools-version:6.0
import Foundation
import PackageDescription

// airloc depends on nothing but the toolchain and Debian's C libraries
// (libgps-dev, libinih-dev): SwiftPM packages cannot be fetched on the devices
// and CI machines this is built for.
let package = Package(
    name: "airloc",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "airloc", targets: ["airloc"]),
        .executable(name: "airloc-example-logger", targets: ["airloc-example-logger"]),
        .executable(name: "airloc-example-fleet-logger", targets: ["airloc-example-fleet-logger"]),
        .library(
            name: "AirlocKit",
            targets: [
                "Geo", "Platform", "Web", "Gazetteer", "Location", "AirQuality", "Settings", "Airloc", "Configuration",
                "Logbook",
                "FieldLog", "MQTT", "FleetWire", "Fleet", "Sensors", "TerminalUI", "FleetStore", "Collector",
                "CollectorStation",
                "Uploads", "Plot",
            ]),
    ],
    targets: [
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .systemLibrary(name: "CINIH", pkgConfig: "inih", providers: [.apt(["libinih-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libmosquitto, opened with dlopen by the first MQTT client (Sources/CMosquitto says why).
        .target(name: "CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        // libcurl, opened with dlopen on the first request (Sources/CCurl/WebRequest.c says why).
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl")]),
        // libpq, opened with dlopen by `airloc collect` only (Sources/CPostgres says why).
        // Its declarations are its own (checked against libpq-fe.h by `make lint`): no
        // unsafe flag, so a package can depend on airloc by version.
        .target(name: "CPostgres", linkerSettings: [.linkedLibrary("dl")]),
        // librsvg and cairo, opened with dlopen by `log plot --format png` only (SVGRendering.c).
        .target(name: "CRsvg", linkerSettings: [.linkedLibrary("dl")]),
        // libmicrohttpd, opened with dlopen by `airloc serve` only (Sources/CMicroHTTPD says why).
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("dl")]),
        // The C library's wcwidth (part of libc: nothing to install or link).
        .systemLibrary(name: "CWideChar"),
        .target(name: "Arguments", dependencies: ["Platform"]),
        .target(name: "Geo"),
        // ThreadSanitizer's annotations for the house lock (weak: nothing without the sanitizer).
        .target(name: "CThreadSanitizer"),
        .target(name: "Platform", dependencies: ["CThreadSanitizer"]),
        .target(name: "Web", dependencies: ["Platform", "CCurl"]),
        .target(name: "Gazetteer", dependencies: ["Geo", "Web", "Platform"]),
        .target(name: "Location", dependencies: ["Geo", "Web", "Platform", "CGPS"]),
        .target(name: "AirQuality", dependencies: ["Geo", "Web", "Platform"]),
        // What a sensor reading is, as values: made by Sensors, kept by Logbook, carried by the wire.
        .target(name: "Readings", dependencies: ["AirQuality"]),
        .target(name: "Sensors", dependencies: ["Readings", "Platform"]),
        // libmosquitto's one file and the connection; the fleet's wire below its users.
        .target(name: "FleetWire", dependencies: ["Geo", "Platform"]),
        .target(name: "MQTT", dependencies: ["Platform", "FleetWire", "CMosquitto", "Settings"]),
        // Every section's settings as typed values, read by anything that takes a setting
        // without linking the pipeline above it (module Configuration reads them from files).
        .target(
            name: "Settings",
            dependencies: ["AirQuality", "FleetWire", "Geo", "Location", "Platform", "Readings", "Sensors", "Web"]),
        .target(
            name: "Airloc",
            dependencies: [
                "Settings", "Geo", "Web", "Platform", "Gazetteer", "Location", "AirQuality", "Sensors", "Readings",
            ]),
        .target(
            name: "Configuration",
            dependencies: [
                "Settings", "AirQuality", "Sensors", "Readings", "Platform", "Location", "Web", "FleetWire", "CINIH",
            ]),
        // Storage only: the SQLite file, its rows, outbox, cursors and exports.
        .target(name: "Logbook", dependencies: ["Geo", "Platform", "Readings", "FleetWire", "CSQLite"]),
        // The logger service over it.
        .target(
            name: "FieldLog",
            dependencies: [
                "Geo", "Web", "Platform", "Location", "AirQuality", "Gazetteer", "Airloc", "Sensors", "Readings",
                "Logbook", "Settings",
            ]),
        .target(
            name: "Fleet",
            dependencies: [
                "Geo", "Web", "Platform", "AirQuality", "Airloc", "Logbook", "FieldLog", "Readings", "MQTT",
                "FleetWire", "Settings",
            ]),
        // The fleet's database: its schema, libpq's one file, and what the fleet page reads.
        .target(name: "FleetStore", dependencies: ["FleetWire", "Geo", "Platform", "CPostgres", "Settings"]),
        // `airloc collect`'s ingest: the machine, its store and ledger, over the fleet's database.
        .target(
            name: "Collector",
            dependencies: ["FleetStore", "FleetWire", "MQTT", "Geo", "Platform", "Settings"]),
        // `airloc log run` assembled: the lock, the logbook, the sensors, the publisher, the uploads.
        .target(
            name: "LoggerStation",
            dependencies: [
                "Airloc", "FieldLog", "Fleet", "Gazetteer", "Location", "Logbook", "Platform", "Uploads", "Settings",
            ]),
        // `airloc doctor`'s checks composed, and its verdict.
        .target(
            name: "Diagnosis",
            dependencies: [
                "Airloc", "Collector", "Configuration", "Fleet", "Location", "Platform", "Uploads", "Settings",
            ]),
        // `airloc collect` assembled: the lock, the collector, its connection and its /metrics.
        .target(
            name: "CollectorStation", dependencies: ["Collector", "FleetStore", "HTTPService", "MQTT", "Platform"]),
        // The one HTTP server (libmicrohttpd): `serve`'s page and API, the collector's /metrics.
        .target(name: "HTTPService", dependencies: ["Platform", "CMicroHTTPD"]),
        .target(
            name: "Uploads",
            dependencies: ["Airloc", "MQTT", "FleetWire", "Geo", "Logbook", "Platform", "Readings", "Web", "Settings"]),
        .target(name: "Plot", dependencies: ["AirQuality", "Geo", "Gazetteer", "Logbook", "Platform", "CRsvg"]),
        // `airloc serve`: the device's page, API, metrics and airrohr's data.json over HTTP;
        // with `[serve] source = collector`, the fleet's page over the collector's database.
        .target(
            name: "Serve",
            dependencies: [
                "Airloc", "AirQuality", "Gazetteer", "Geo", "Logbook", "Plot", "Platform", "Readings", "FleetWire",
                "Web", "HTTPService", "FleetStore", "Settings",
            ]),
        .target(
            name: "TerminalUI",
            dependencies: [
                "Geo", "Gazetteer", "Platform", "AirQuality", "Airloc", "Readings", "CWideChar", "Location", "Sensors",
                "Settings", "Web",
            ]),
        // airloc(1) and airloc.conf(5) in roff, from the commands' and the keys' declarations.
        .target(name: "ManualPages", dependencies: ["Arguments", "Configuration", "Web"]),
        .target(
            name: "AirlocCLI",
            dependencies: [
                "Geo", "Web", "Platform", "Gazetteer", "Location", "AirQuality", "Airloc", "Configuration", "Logbook",
                "FieldLog", "FleetWire", "Fleet", "TerminalUI", "Arguments", "Sensors", "Plot", "FleetStore",
                "Collector", "CollectorStation", "LoggerStation", "Diagnosis", "Serve", "Settings", "ManualPages",
            ]),
        .executableTarget(name: "airloc", dependencies: ["AirlocCLI"]),
        // What a Swift field-logging program starts from: the library alone (docs/library.md).
        .executableTarget(
            name: "airloc-example-logger",
            dependencies: ["Airloc", "Configuration", "AirQuality", "Geo", "Gazetteer", "Settings"],
            path: "Examples/LoggerExample"),
        // The logger with its MQTT publisher, from the library alone.
        .executableTarget(
            name: "airloc-example-fleet-logger",
            dependencies: ["Airloc", "Configuration", "LoggerStation", "Geo", "Gazetteer", "Platform", "Settings"],
            path: "Examples/FleetLoggerExample"),
        .target(name: "GeocodeAcceptance", dependencies: ["Geo", "Gazetteer"]),
        // Every parser of outside bytes as a fuzz target (`make fuzz`, docs/testing.md); the
        // libFuzzer executable over it is declared below, only for `make fuzz`.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "AirQuality", "Collector", "Configuration", "FleetWire", "Gazetteer", "Geo", "HTTPService", "Location",
                "Logbook", "Platform", "Readings", "Sensors", "Serve", "Settings", "Uploads", "Web",
            ]),
        .executableTarget(
            name: "airloc-bench",
            dependencies: [
                "Geo", "Gazetteer", "AirQuality", "GeocodeAcceptance", "Logbook", "MQTT", "FleetWire", "Fleet",
                "Airloc", "Platform", "Sensors", "Readings", "FleetStore", "Collector", "Uploads", "Settings", "Web",
            ],
            path: "Sources/Bench"),
        .target(name: "CSpawn", path: "Tests/CSpawn"),
        .target(
            name: "TestSupport", dependencies: ["Web", "Platform", "MQTT", "CSpawn"], path: "Tests/TestSupport"),
        .testTarget(name: "GeoTests", dependencies: ["Geo"]),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets", "TestSupport"]),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "Readings", "AirQuality", "TestSupport"]),
        .testTarget(name: "PlotTests", dependencies: ["Plot"]),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", "TestSupport"]),
        .testTarget(name: "WebTests", dependencies: ["Web", "TestSupport", "Platform"]),
        .testTarget(
            name: "GazetteerTests", dependencies: ["Gazetteer", "GeocodeAcceptance", "TestSupport", "Geo", "Web"]),
        .testTarget(name: "LocationTests", dependencies: ["Location", "TestSupport", "Geo", "Web"]),
        .testTarget(name: "AirQualityTests", dependencies: ["AirQuality", "TestSupport", "Geo", "Web"]),
        .testTarget(
            name: "AirlocCLITests",
            dependencies: [
                "AirlocCLI", "Arguments", "Configuration", "Platform", "TestSupport", "TerminalUI", "AirQuality",
                "Logbook", "ManualPages",
            ]),
        .testTarget(
            name: "TerminalUITests",
            dependencies: ["TerminalUI", "Geo", "Airloc", "AirQuality", "Sensors", "Readings"]),
        .testTarget(
            name: "FieldLogTests",
            dependencies: [
                "FieldLog", "Logbook", "Airloc", "Gazetteer", "Geo", "Platform", "Sensors", "Web", "TestSupport",
                "Settings",
            ]),
        .testTarget(
            name: "LogbookTests",
            dependencies: ["Logbook", "FieldLog", "FleetWire", "Sensors", "Readings", "TestSupport", "Geo"]),
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "Fleet", "MQTT", "FleetWire", "Logbook", "Airloc", "Geo", "Platform", "Sensors", "Readings",
                "TestSupport", "Settings",
            ]),
        .testTarget(
            name: "ServeTests",
            dependencies: [
                "Serve", "FleetStore", "HTTPService", "Airloc", "Gazetteer", "Logbook", "Geo", "Platform", "Sensors",
                "Readings", "Web", "TestSupport", "FleetWire", "Settings", "AirQuality",
            ]),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "Platform", "TestSupport"]),
        .testTarget(
            name: "UploadsTests",
            dependencies: [
                "Uploads", "FleetWire", "Airloc", "Logbook", "Web", "Geo", "Platform", "Sensors", "Readings",
                "TestSupport", "Settings",
            ]),
        .testTarget(
            name: "CollectorTests",
            dependencies: [
                "Collector", "FleetStore", "MQTT", "FleetWire", "Platform", "TestSupport", "Geo", "Settings",
            ]),
        .testTarget(
            name: "AirlocTests",
            dependencies: [
                "Airloc", "AirQuality", "Gazetteer", "Geo", "Location", "Platform", "Web", "TestSupport", "Settings",
            ]),
        .testTarget(name: "DiagnosisTests", dependencies: ["Diagnosis", "Location", "TestSupport"]),
        .testTarget(
            name: "ConfigurationTests",
            dependencies: ["Configuration", "Airloc", "TestSupport", "AirQuality", "Settings", "Platform"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "TestSupport", "airloc", "airloc-example-logger", "airloc-example-fleet-logger", "airloc-bench",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// `make fuzz` builds this with `--sanitize=fuzzer --sanitize=address`: libFuzzer's own
// main drives it, so it exists only then (AIRLOC_FUZZ=1), outside the release product.
if ProcessInfo.processInfo.environment["AIRLOC_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "airloc-fuzz", dependencies: ["FuzzTargets"], path: "Fuzz/Driver",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
}
