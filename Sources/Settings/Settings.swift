import AirQuality
import FleetWire
import Foundation
import Geo
import Location
import Platform
import Web

/// Everything that decides how airloc locates the device and fetches the air: the typed
/// values, whatever they were read from (the `Configuration` module reads them from
/// airloc.conf files and the environment; a Swift program may set them directly).
///
/// Contract: every value is already valid (ranges are checked where it is read); the
/// defaults are the documented ones (docs/configuration.md). Nothing here reads a file:
/// the chosen place (`airloc use`) is read by module Airloc (`chosenPlace`).
public struct Settings: Sendable {
    /// Where gpsd is.
    public var gpsd = GPSDProvider.Options()
    /// Seconds to wait for a first GPS fix.
    public var gpsdTimeout: Double = 10
    /// Seconds without a valid fix before it is stale, and before it is lost.
    public var gpsdStaleAfter: Double = 5
    /// Seconds without a valid fix before the position is lost.
    public var gpsdLostAfter: Double = 30
    /// The location providers in the order they are tried.
    public var providers: [ProviderName] = [.gpsd, .manual]
    /// A place name for the manual provider (`[location] place`), resolved offline.
    public var manualPlace: String?
    /// Where the manual location was set ("~/.config/airloc/airloc.conf:3"), for errors.
    public var manualOrigin: String?
    /// The manual location's latitude (`[location] latitude`).
    public var manualLatitude: Double?
    /// The manual location's longitude.
    public var manualLongitude: Double?
    /// Coordinates given for one run (`--lat/--lon`): nothing is sensed, and the chosen
    /// place does not stand in. `origin` says where they came from ("--lat/--lon").
    public var givenCoordinate: (coordinate: Coordinate, origin: String)?
    /// The IP geolocation service.
    public var ipService = IPService.ipwhois
    /// Open-Meteo air quality.
    public var airQualityURL = OpenMeteoAirQuality.defaultBaseURL
    /// Open-Meteo geocoding.
    public var geocodingURL = ServiceURL(string: "https://geocoding-api.open-meteo.com")!
    /// Open-Meteo's archive.
    public var archiveURL = OpenMeteoArchive.defaultBaseURL
    /// Zippopotam.us.
    public var postalURL = ServiceURL(string: "https://api.zippopotam.us")!
    /// nil: the chosen ``ipService``'s own endpoint.
    public var ipURL: ServiceURL?
    /// Seconds allowed for one web request.
    public var serviceTimeout: Double = 10
    /// Seconds for a whole report (all requests, retries included).
    public var serviceDeadline: Double = 15
    /// Commercial Open-Meteo access (`customer-` hosts); never logged.
    public var openMeteoAPIKey: String?
    /// How old a cached report may be and stand in when the network fails.
    public var maxStale: Double = 6 * 3600
    /// nil = auto (imperial for US places).
    public var units: TemperatureUnit?
    /// The index the card leads with.
    public var scale = AQIScale.us
    /// Degrees to which coordinates are rounded before they leave the device.
    public var outboundPrecision: Double = 0.01
    /// The administrator's authorization policy (`[authorization]` in the system file).
    public var policy = AuthorizationPolicy()
    /// When to colour the output.
    public var color = ColorChoice.auto
    /// Where the user's state (authorization, chosen place) and cache live.
    public var directories: XDGDirectories
    /// The files the values were read from, in order (for `--verbose` and `doctor`).
    public var sources: [String] = []
    /// The files that hold a secret (the MQTT password, an API key), as "path:line":
    /// `doctor` warns when others can read them.
    public var secretSources: [String] = []

    /// The defaults, with these directories.
    public init(directories: XDGDirectories) {
        self.directories = directories
    }

    /// When to colour the output.
    public enum ColorChoice: String, Sendable, CaseIterable { case auto, always, never }

    /// The location providers a chain can hold.
    public enum ProviderName: String, Sendable, CaseIterable { case gpsd, ip, manual }

    /// The GPS timing the settings ask for.
    public var gpsdTiming: GPSDTiming {
        GPSDTiming(firstFix: gpsdTimeout, staleAfter: gpsdStaleAfter, lostAfter: gpsdLostAfter)
    }

    /// The air-quality service, with the API key applied where it may be sent.
    public var airQualityEndpoint: OpenMeteoEndpoint {
        OpenMeteoEndpoint(base: airQualityURL, publicBase: OpenMeteoAirQuality.defaultBaseURL, apiKey: openMeteoAPIKey)
    }

    /// The archive service, with the API key applied where it may be sent.
    public var archiveEndpoint: OpenMeteoEndpoint {
        OpenMeteoEndpoint(base: archiveURL, publicBase: OpenMeteoArchive.defaultBaseURL, apiKey: openMeteoAPIKey)
    }

    /// The authorization store in the state directory.
    public var authorizationStore: AuthorizationStore { AuthorizationStore(stateDirectory: directories.state) }

    /// `[mqtt]`: publishing the logbook to a broker (module `Fleet`); off without a url.
    public var mqtt = MQTTSettings()
    /// `[collect]`: the fleet collector (`airloc collect`), for the machine that runs it.
    public var collect = CollectSettings()
    /// `[upload.NAME]` sections, in the order they first appear.
    public var uploads: [UploadSettings] = []
    /// `[sensor]`: the particulate sensor, if any.
    public var sensor = SensorSettings()
    /// `[sensor.NAME]`: CO₂ and climate sensors beside it, in the file's order.
    public var climateSensors: [ClimateSensorSettings] = []
    /// `[serve]`: the device's page, API and metrics (`airloc serve`).
    public var serve = ServeSettings()

    /// `[log]`: when the field logger records points and fetches air (``LogSettings``).
    public var logTrigger = LogSettings()
    /// `[log] database` / `AIRLOC_LOG_DATABASE`; nil: the state directory's logbook.sqlite.
    public var logDatabasePath: String?
    /// `[log] keep`: rows older than this are pruned by the logger (nil: kept forever).
    public var logKeep: Double?

    /// The logbook file: `[log] database`, else `$XDG_STATE_HOME/airloc/logbook.sqlite`.
    public var logDatabase: URL {
        logDatabasePath.map { URL(fileURLWithPath: $0) } ?? directories.state.appendingPathComponent("logbook.sqlite")
    }

    /// A host that only collects: `[collect]` is set, and nothing here senses or publishes
    /// (no `[mqtt] url`, no `[sensor]`, no `[upload.NAME]`). `doctor` then checks the
    /// collector's parts instead of gpsd, the receiver and the location.
    public var collectsOnly: Bool {
        (collect.broker.url != nil || collect.database != nil) && mqtt.broker.url == nil && sensor.model == nil
            && uploads.isEmpty
    }

    /// Seconds as a `Duration` of whole milliseconds, for the timeouts the settings give.
    public static func milliseconds(_ seconds: Double) -> Duration { .milliseconds(Int((seconds * 1000).rounded())) }
}
