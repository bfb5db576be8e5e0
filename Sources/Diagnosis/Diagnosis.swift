import Airloc
import Collector
import Fleet
import Foundation
import Platform
import Settings
import Uploads

/// `airloc doctor`'s checks composed, and its verdict decided, in a library: the device's
/// checkup (the configuration, the place data, authorization, gpsd and the receiver, the
/// sensors, the services), then the brokers (`[mqtt]`, `[collect]`), the collector's
/// database and the uploads — what any program that wants doctor's answer gets the same way.
///
/// Contract: nothing personal is sent (``Checkup``'s contract); the verdict is
/// ``Verdict/configuration`` for a configuration that does not load, place data that
/// cannot be used or settings a server refuses (credentials), ``Verdict/unavailable`` when a
/// needed part fails, else ``Verdict/ok`` (warnings allowed).
public struct Diagnosis: Sendable {
    /// What doctor's exit status says.
    public enum Verdict: Sendable, Equatable {
        /// Every needed part works.
        case ok
        /// A needed part does not work.
        case unavailable
        /// The configuration cannot work as written.
        case configuration
    }

    /// Every check, in order.
    public var checks: [HealthCheck]
    /// The verdict.
    public var verdict: Verdict
    /// The place data, when the checkup loaded it.
    public var checkup: Checkup

    /// Checks `settings` (see the contract); `configurationError` is why the configuration
    /// did not load, if it did not (the rest is then not checked: it would check defaults).
    public static func run(
        _ settings: Settings, environment: [String: String], configurationError: String?,
        wording: Checkup.Wording
    ) async -> Diagnosis {
        let checkup = await Checkup.run(
            settings, environment: environment, configurationError: configurationError, wording: wording)
        var checks = checkup.checks
        if configurationError != nil { return Diagnosis(checks: checks, verdict: .configuration, checkup: checkup) }
        var misconfigured = false
        let timeout = min(settings.serviceTimeout, 10)
        var brokers = [await BrokerFinding.device(settings, timeout: timeout)]
        if settings.collect.broker.url != nil,
            let plan = try? CollectorPlan(settings: settings.collect, stateDirectory: settings.directories.state)
        {
            brokers.append(await BrokerFinding.collector(plan.broker, place: plan.brokerPlace, timeout: timeout))
        }
        for case let broker? in brokers {
            checks.append(broker.check)
            misconfigured = misconfigured || broker.configuration
        }
        if let probe = CollectorPlan.probeDatabase(settings.collect, stateDirectory: settings.directories.state) {
            checks.append(
                HealthCheck(
                    name: "collector database", status: probe.ok ? .ok : .fail, detail: probe.detail,
                    advice: probe.advice))
            misconfigured = misconfigured || probe.configuration
        }
        let uploads = await UploadProbe.checks(settings, timeout: timeout)
        checks += uploads.checks
        misconfigured = misconfigured || uploads.configuration
        let failed = checks.contains { $0.status == .fail }
        let verdict: Verdict =
            checkup.placeFailure != nil || misconfigured ? .configuration : failed ? .unavailable : .ok
        return Diagnosis(checks: checks, verdict: verdict, checkup: checkup)
    }
}
