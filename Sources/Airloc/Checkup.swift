import Foundation
import Gazetteer
import Location
import Settings

/// `doctor`'s checks in their order, for any program: the configuration, the place data,
/// the authorization, gpsd, devices, the particulate sensor, the `[sensor.NAME]` sensors and
/// the kernel's climate devices, the manual location, the
/// air-quality and IP services, `[serve]` and the secrets (the broker is the `Fleet` module's, ``HealthCheck`` is each finding).
///
/// Contract: sends nothing personal (see ``HealthCheck``); the IP service, which learns the
/// device's address, is asked only when the chain lists it and sensing is authorized. A
/// manual place that cannot be used fails the configuration's own check too, since it is
/// a line of the configuration. A configuration that does not load is the only check made
/// (the rest would check the defaults). On a host that only collects (``Settings/collectsOnly``)
/// only the configuration, the place data and the secrets are checked here.
public struct Checkup: Sendable {
    /// The checks so far, in order.
    public var checks: [HealthCheck] = []
    /// Why the configured manual place cannot be used (unknown or ambiguous), if it cannot.
    public var placeFailure: LocationSessionError?
    /// The place data the checks loaded (its ``Gazetteer/damageDetected`` tells whether the
    /// lookups met damage).
    public var gazetteer: Gazetteer?

    /// No checks yet.
    public init() {}

    /// The checks that failed.
    public var failed: [HealthCheck] { checks.filter { $0.status == .fail } }

    /// How a program words two failures for its users (the command line adds what to do).
    public struct Wording: Sendable {
        /// How to say that the place data is broken.
        public var placeData: @Sendable (GazetteerError) -> String
        /// How to say that the manual place cannot be used.
        public var manualPlace: @Sendable (LocationSessionError) -> String

        /// A wording.
        public init(
            placeData: @escaping @Sendable (GazetteerError) -> String,
            manualPlace: @escaping @Sendable (LocationSessionError) -> String
        ) {
            (self.placeData, self.manualPlace) = (placeData, manualPlace)
        }

        /// The errors' own descriptions.
        public static let plain = Wording(placeData: \.description, manualPlace: \.description)
    }

    /// Runs the checks. `configurationError` is the message of a configuration that did not
    /// load (the checks then use `settings`, the defaults).
    public static func run(
        _ settings: Settings, environment: [String: String], configurationError: String?,
        wording: Wording = .plain
    ) async -> Checkup {
        var checkup = Checkup()
        if let configurationError {
            // The other checks would look at the defaults, not at what the user wrote, and
            // count their failures as problems of their own: one problem is one problem.
            checkup.checks.append(
                HealthCheck(
                    name: "configuration", status: .fail, detail: configurationError, advice: "fix the line named"))
            checkup.checks.append(
                HealthCheck(
                    name: "other checks", status: .warn,
                    detail: "not run: they need the configuration to load",
                    advice: "fix the configuration, then run doctor again"))
            return checkup
        } else {
            let files = settings.sources.isEmpty ? "defaults (no file)" : settings.sources.joined(separator: ", ")
            checkup.checks.append(HealthCheck(name: "configuration", status: .ok, detail: files))
        }
        do throws(GazetteerError) {
            let loaded = try PlaceData.load(environment: environment)
            checkup.gazetteer = loaded
            checkup.checks.append(
                HealthCheck(name: "place data", status: .ok, detail: "\(loaded.count) places from \(loaded.location)"))
        } catch {
            checkup.checks.append(
                HealthCheck(
                    name: "place data", status: .fail, detail: wording.placeData(error),
                    advice: "reinstall (make install) or set AIRLOC_DATA"))
        }
        if settings.collectsOnly {
            // gpsd, a receiver or a location would be failures that do not matter here.
            checkup.checks.append(
                HealthCheck(
                    name: "device checks", status: .ok,
                    detail: "skipped: this host only collects ([collect] is set; [mqtt] url, [sensor] and uploads "
                        + "are not)"))
            checkup.checks += await HealthCheck.collectMetrics(settings)
            checkup.checks += HealthCheck.secrets(settings)
            return checkup
        }
        let providers = settings.providers
        let machine = LocationAuthorization(stored: settings.authorizationStore.load(), policy: settings.policy)
        let authorized = machine.status == .authorizedWhenInUse || machine.status == .authorizedAlways
        checkup.checks += HealthCheck.authorization(
            machine, providers: providers, senses: providers.contains(.gpsd) || providers.contains(.ip))
        if providers.contains(.gpsd) { checkup.checks += await HealthCheck.gpsd(settings) }
        checkup.checks += HealthCheck.devices()
        checkup.checks += await HealthCheck.sensor(settings)
        checkup.checks += await HealthCheck.climateSensors(settings)
        if let gazetteer = checkup.gazetteer {
            checkup.checkManualLocation(settings, gazetteer: gazetteer, wording: wording)
        }
        checkup.checks.append(await HealthCheck.airQualityService(settings, environment: environment))
        if providers.contains(.ip) && authorized { checkup.checks.append(await HealthCheck.ipService(settings)) }
        checkup.checks += await HealthCheck.serve(settings)
        checkup.checks += await HealthCheck.collectMetrics(settings)
        checkup.checks += HealthCheck.secrets(settings)
        return checkup
    }

    /// A configured place that is unknown or ambiguous is a configuration error, as it is
    /// for `locate`: the checkup must not call the configuration ok and fail later.
    private mutating func checkManualLocation(_ settings: Settings, gazetteer: Gazetteer, wording: Wording) {
        let name = "manual location"
        do throws(LocationSessionError) {
            if let manual = try LocationSession(settings: settings, gazetteer: gazetteer).manualProvider() {
                checks.append(HealthCheck(name: name, status: .ok, detail: "\(manual.coordinate) (\(manual.origin))"))
            } else if settings.providers.contains(.manual) {
                checks.append(
                    HealthCheck(
                        name: name, status: .warn, detail: "none configured (the chain's last resort)",
                        advice: "set [location] latitude/longitude or place, or pass --lat/--lon"))
            }
        } catch {
            placeFailure = error
            if let index = checks.firstIndex(where: { $0.name == "configuration" }) {
                checks[index] = HealthCheck(
                    name: "configuration", status: .fail,
                    detail:
                        "\(settings.manualOrigin ?? "[location] place"): the place cannot be used (see manual location)",
                    advice: "fix the line named")
            }
            checks.append(
                HealthCheck(
                    name: name, status: .fail, detail: wording.manualPlace(error),
                    advice: "use another spelling, 'Name, CC', or latitude/longitude"))
        }
    }
}
