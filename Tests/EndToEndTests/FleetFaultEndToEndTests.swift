import Foundation
import TestSupport
import Testing

/// Publishing under faults, against a real mosquitto of the test's own: a broker that
/// goes away for 15 s while the logger runs, TLS that cannot be trusted (nothing may go
/// out in clear), and a fleet of 200 devices through airloc's own client code.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_sub", "openssl")))
struct FleetFaultEndToEndTests {
    typealias Fleet = FleetEndToEndTests

    static func messages(_ subscribers: [MQTTSubscriber], under prefix: String) -> [(topic: String, payload: String)] {
        subscribers.flatMap { $0.messages.filter { $0.topic.hasPrefix(prefix) } }
    }

    /// The broker stops for 15 s while rows keep being logged, and comes back with its
    /// persistence: every logbook row reaches the consumer's persistent session.
    @Test func everyRowArrivesWhenTheBrokerIsDownFor15SecondsMidRun() async throws {
        let broker = try await MosquittoBroker.start()
        let before = try await MQTTSubscriber.start(broker: broker, id: "midrun-consumer", topics: ["airloc/#"])
        let world = try await AirlocWorld(config: Fleet.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Fleet.waitForStatus(world, "rows published while the broker is up", logger: logger) {
            ($0["track_rows"] as? Int ?? 0) >= 3 && ($0["unsent"] as? Int) == 0
        }
        try await broker.stop()
        let down = ContinuousClock.now
        // The consumer is gone with the broker; its session waits in the persistence.
        try await before.stop()
        try await Fleet.waitForStatus(world, "rows logged while the broker is down", logger: logger) {
            ($0["unsent"] as? Int ?? 0) >= 3
        }
        // The outage itself lasts 15 s (the scenario; nothing waits on it to synchronise).
        let rest = .seconds(15) - (ContinuousClock.now - down)
        if rest > .zero { try await Task.sleep(for: rest) }
        #expect(
            logger.errors.contains("cannot reach the broker") && logger.errors.contains("retrying"), "\(logger.errors)")
        try await broker.start()
        let after = try await MQTTSubscriber.start(broker: broker, id: "midrun-consumer", topics: ["airloc/#"])
        try await Fleet.waitForStatus(world, "the backlog acknowledged", logger: logger) { ($0["unsent"] as? Int) == 0 }
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        let logged = try await Fleet.loggedIDs(world)
        #expect(logged.count >= 6)
        try await Poll.until("every logged row at the consumer") {
            logged.isSubset(
                of: Fleet.receivedIDs(before, prefix: "airloc/test-device").union(
                    Fleet.receivedIDs(after, prefix: "airloc/test-device")))
        }
        try await after.stop()
        try await broker.stop()
    }

    /// `mqtts://` to a listener that does not speak TLS, then to one whose certificate the
    /// configured CA did not sign: the handshake fails, the error says why, no MQTT data
    /// reaches the broker, the rows wait. With the right CA, every row arrives.
    @Test func untrustedTLSSendsNothingAndTheRightAuthorityDeliversEverything() async throws {
        let broker = try await MosquittoBroker.start(tls: true)
        let certificates = try #require(broker.certificates)
        let tlsPort = try #require(broker.tlsPort)
        let subscriber = try await MQTTSubscriber.start(broker: broker, id: "tls-consumer", topics: ["#"])
        let world = try await AirlocWorld(config: Fleet.config(broker))
        defer { world.stop() }
        let configFile = world.home.url.appendingPathComponent("config/airloc/airloc.conf")
        func configure(port: Int, authority: String) throws {
            try
                "[log]\ntrack-interval = 1\n[mqtt]\nurl = mqtts://127.0.0.1:\(port)\nca-file = \(authority)\ntopic-prefix = airloc/test-device\n"
                .write(to: configFile, atomically: true, encoding: .utf8)
        }
        let untrusted = [
            (broker.port, certificates.authority, "TLS with 127.0.0.1:\(broker.port) failed"),
            (tlsPort, certificates.otherAuthority, "certificate verify failed"),
        ]
        for (port, authority, reason) in untrusted {
            try configure(port: port, authority: authority)
            let doctor = try await world.run(["doctor", "--json"])
            let checks = Fleet.json(doctor.stdout)?["checks"] as? [[String: Any]] ?? []
            let check = try #require(checks.first { $0["name"] as? String == "MQTT broker" }, "\(doctor)")
            #expect(check["status"] as? String == "fail" && (check["detail"] as? String ?? "").contains(reason))
            #expect(doctor.status == 69, "\(doctor)")
            let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
            try await Fleet.waitForStatus(world, "rows waiting", logger: logger) { ($0["unsent"] as? Int ?? 0) >= 2 }
            try await Poll.until("the TLS failure said") { logger.errors.contains(reason) }
            logger.signal(SIGTERM)
            #expect(try await logger.wait().status == 0)
        }
        #expect(Self.messages([subscriber], under: "airloc/").isEmpty, "\(subscriber.messages)")
        try configure(port: tlsPort, authority: certificates.authority)
        let doctor = try await world.run(["doctor", "--json"])
        #expect(doctor.stdout.contains("mqtts://127.0.0.1:\(tlsPort) accepts the connection"), "\(doctor)")
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Fleet.waitForStatus(world, "everything acknowledged over TLS", logger: logger) {
            ($0["unsent"] as? Int) == 0
        }
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        let logged = try await Fleet.loggedIDs(world)
        try await Poll.until(
            "every logged row at the consumer: missing \(logged.subtracting(Fleet.receivedIDs(subscriber, prefix: "airloc/test-device")).sorted())"
        ) {
            logged.isSubset(of: Fleet.receivedIDs(subscriber, prefix: "airloc/test-device"))
        }
        try await subscriber.stop()
        try await broker.stop()
    }

    /// A broker that takes only clients with a certificate: without `cert-file`, doctor and
    /// the logger say that a client certificate is what is missing (not "connection lost"),
    /// and nothing is sent; with the device's certificate, every row arrives.
    @Test func aBrokerThatRequiresAClientCertificateIsToldOfIt() async throws {
        let broker = try await MosquittoBroker.start(tls: true, requireCertificate: true)
        let certificates = try #require(broker.certificates)
        let tlsPort = try #require(broker.tlsPort)
        let subscriber = try await MQTTSubscriber.start(broker: broker, id: "cert-consumer", topics: ["#"])
        let world = try await AirlocWorld(config: Fleet.config(broker))
        defer { world.stop() }
        let configFile = world.home.url.appendingPathComponent("config/airloc/airloc.conf")
        let tls = """
            [log]
            track-interval = 1
            [mqtt]
            url = mqtts://127.0.0.1:\(tlsPort)
            ca-file = \(certificates.authority)
            topic-prefix = airloc/cert-device

            """
        try tls.write(to: configFile, atomically: true, encoding: .utf8)
        let missing = "the broker requires a client certificate, and none is set (set [mqtt] cert-file and key-file"
        let doctor = try await world.run(["doctor", "--json"])
        let checks = Fleet.json(doctor.stdout)?["checks"] as? [[String: Any]] ?? []
        let check = try #require(checks.first { $0["name"] as? String == "MQTT broker" }, "\(doctor)")
        #expect(
            check["status"] as? String == "fail" && (check["detail"] as? String ?? "").contains(missing), "\(doctor)")
        let refused = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Fleet.waitForStatus(world, "rows waiting", logger: refused) { ($0["unsent"] as? Int ?? 0) >= 2 }
        try await Poll.until("the missing certificate said") { refused.errors.contains(missing) }
        refused.signal(SIGTERM)
        #expect(try await refused.wait().status == 0)
        #expect(!refused.errors.contains("lost"), "\(refused.errors)")
        #expect(Self.messages([subscriber], under: "airloc/").isEmpty, "\(subscriber.messages)")

        try (tls + "cert-file = \(certificates.clientCertificate)\nkey-file = \(certificates.clientKey)\n")
            .write(to: configFile, atomically: true, encoding: .utf8)
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        try await Fleet.waitForStatus(world, "everything acknowledged with the certificate", logger: logger) {
            ($0["unsent"] as? Int) == 0
        }
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        let logged = try await Fleet.loggedIDs(world)
        try await Poll.until("every logged row at the consumer") {
            logged.isSubset(of: Fleet.receivedIDs(subscriber, prefix: "airloc/cert-device"))
        }
        try await subscriber.stop()
        try await broker.stop()
    }

    /// The issue's bounded load: 200 devices (each its own connection, session and network
    /// thread of airloc's client), 10 rows a second each for 30 s. An independent
    /// subscriber receives every row at least once.
    @Test func twoHundredDevicesAtTenRowsASecondLoseNothing() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber.start(broker: broker, id: "load-consumer", topics: ["+/+/history"])
        let bench = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent()
            .appendingPathComponent("airloc-bench").path
        let load = try await ChildProcess.run(
            bench, ["mqtt-load", broker.url, "200", "10", "30"], environment: ProcessInfo.processInfo.environment,
            timeout: 600)
        #expect(load.status == 0, "\(load)")
        #expect(load.stdout.contains("received 60000 distinct"), "\(load.stdout)")
        // Counted again outside airloc: distinct (device, id) pairs at mosquitto_sub.
        try await Poll.until("60,000 distinct rows at mosquitto_sub", deadline: .seconds(300)) {
            // The device is in the topic; the row's id opens the payload after the schema.
            Set(subscriber.messages.map { "\($0.topic) \($0.payload.prefix(48))" }).count >= 60_000
        }
        try await subscriber.stop()
        try await broker.stop()
    }
}
