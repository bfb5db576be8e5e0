import Foundation

/// A world of its own for one end-to-end test: a temporary home (config, state, cache),
/// a real gpsd replaying a log through gpsfake, and the HTTP double standing in for every
/// web service, with the built `airloc` pointed at them.
public struct AirlocWorld: Sendable {
    public let home: TemporaryDirectory
    public let gpsd: GPSFake
    public let double: HTTPDouble
    public var environment: [String: String]
    /// A directory of the test's (where it wrote the log) removed with the world.
    private let kept: TemporaryDirectory?

    /// `log` replays that NMEA file; without it a synthetic Berlin `track` (fix, lost,
    /// nofix). `config` becomes the user's airloc.conf. `authorized` runs `auth grant`.
    public init(
        log: URL? = nil, keeping kept: TemporaryDirectory? = nil, track: String = "fix", faults: [String] = [],
        config: String? = nil, authorized: Bool = true
    ) async throws {
        self.kept = kept
        home = try TemporaryDirectory()
        var replay = log
        if replay == nil {
            let file = home.file("track.nmea")
            try await SyntheticTrack.write(kind: track, latitude: 52.5200, longitude: 13.4050, to: file)
            replay = file
        }
        gpsd = try await GPSFake.start(log: replay!)
        double = try await HTTPDouble.start(faults: faults)
        environment = AirlocBinary.environment(
            home: home.url, servicesAt: double, extra: ["AIRLOC_GPSD": "127.0.0.1:\(gpsd.port)"])
        if let config {
            let directory = home.url.appendingPathComponent("config/airloc")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try config.write(to: directory.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        }
        if authorized {
            let granted = try await AirlocBinary.run(["auth", "grant", "--always"], environment: environment)
            guard granted.status == 0 else { throw FixtureError("auth grant failed: \(granted)") }
        }
    }

    /// Runs the built binary in this world.
    public func run(_ arguments: [String], timeout: TimeInterval = 120) async throws -> ChildProcess.Result {
        try await AirlocBinary.run(arguments, environment: environment, timeout: timeout)
    }

    public func stop() {
        gpsd.stop()
        double.stop()
        home.remove()
        kept?.remove()
    }
}
