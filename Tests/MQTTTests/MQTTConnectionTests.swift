import Foundation
import MQTT
import Platform
import Synchronization
import TestSupport
import Testing

/// airloc's libmosquitto client against a real mosquitto of the test's own: every
/// happening comes as an event, it reconnects by itself, pauses and resumes, and a stop
/// says goodbye cleanly (the farewell, no will) without blocking anyone.
@Suite(.enabled(if: ExternalTool.available("mosquitto_sub")))
struct MQTTConnectionTests {
    /// A client running as its service, with every event it posted kept.
    final class Running: Sendable {
        let client: any MQTTClient
        let context: ServiceContext
        let logged: Log
        private let run: Task<Void, Never>
        private let listen: Task<Void, Never>

        init(_ options: MQTTOptions) throws {
            let client = try MQTT.client(options)
            let context = ServiceContext(name: .other("test")) { _ in }
            let log = Log()
            logged = log
            self.client = client
            self.context = context
            run = Task { try? await client.run(context) }
            listen = Task { for await event in client.events { log.append(event) } }
        }

        final class Log: Sendable {
            private let events = Mutex<[MQTTEvent]>([])
            func append(_ event: MQTTEvent) { events.withLock { $0.append(event) } }
            var all: [MQTTEvent] { events.withLock { $0 } }
        }

        var events: [MQTTEvent] { logged.all }

        func waitFor(_ what: String, _ condition: @escaping @Sendable ([MQTTEvent]) -> Bool) async throws {
            let logged = self.logged
            do { try await Poll.until(what) { condition(logged.all) } } catch {
                throw FixtureError("\(error); events: \(logged.all)")
            }
        }

        /// Asks it to stop and waits until its service has returned and its events ended.
        func stop() async {
            context.requestStop()
            await run.value
            await listen.value
        }
    }

    static func options(_ broker: MosquittoBroker, _ id: String) -> MQTTOptions {
        MQTTOptions(host: "127.0.0.1", port: broker.port, clientID: id)
    }

    @Test func eachHappeningIsAnEventInOrder() async throws {
        let broker = try await MosquittoBroker.start()
        let running = try Running(Self.options(broker, "events"))
        try await running.waitFor("connected") { $0.contains(.connected(generation: 1)) }
        try running.client.subscribe("airloc-test/#")
        // The subscription is in place once a message published after it comes back.
        try await Poll.until("its own message back") {
            _ = try? running.client.publish("airloc-test/echo", "hello")
            return running.events.contains(.message(topic: "airloc-test/echo", payload: "hello", retained: false))
        }
        let id = try running.client.publish("airloc-test/echo", "again")
        try await running.waitFor("the acknowledgement of \(id)") { $0.contains(.acknowledged(id)) }
        await running.stop()
        #expect(running.events.last == .disconnected(nil), "a clean stop says so last")
        try await broker.stop()
    }

    @Test func itReconnectsByItselfWithANewGeneration() async throws {
        let broker = try await MosquittoBroker.start()
        let running = try Running(Self.options(broker, "reconnects"))
        try await running.waitFor("connected") { $0.contains(.connected(generation: 1)) }
        try await broker.stop()
        try await running.waitFor("the connection lost") {
            $0.contains(.disconnected(.lost(place: "127.0.0.1:\(broker.port)")))
        }
        try await broker.start()
        try await running.waitFor("connected again") { $0.contains(.connected(generation: 2)) }
        await running.stop()
        try await broker.stop()
    }

    @Test func aCleanStopPublishesTheFarewellAndNotTheWill() async throws {
        let broker = try await MosquittoBroker.start()
        let watcher = try await MQTTSubscriber.start(broker: broker, id: "watcher", topics: ["airloc-test/status"])
        var options = Self.options(broker, "farewell")
        options.will = .init(topic: "airloc-test/status", payload: "died")
        options.farewell = .init(topic: "airloc-test/status", payload: "offline")
        let running = try Running(options)
        try await running.waitFor("connected") { $0.contains(.connected(generation: 1)) }
        await running.stop()
        // The broker would publish the will at once after an unclean end: a message sent
        // after the stop comes after whatever the stop caused.
        let after = try Running(Self.options(broker, "after"))
        try await after.waitFor("connected") { $0.contains(.connected(generation: 1)) }
        _ = try after.client.publish("airloc-test/status", "after")
        try await Poll.until("the message after the stop") { watcher.messages.contains { $0.payload == "after" } }
        let payloads = watcher.messages.map(\.payload)
        #expect(payloads.prefix(2) == ["offline", "after"], "\(payloads)")
        await after.stop()
        try await watcher.stop()
        try await broker.stop()
    }

    @Test func aStopWhileTheBrokerIsAwayEndsTheBackOffAtOnce() async throws {
        let port = try GPSFake.freePort()
        let running = try Running(MQTTOptions(host: "127.0.0.1", port: port, clientID: "nobody-there"))
        try await running.waitFor("the failed attempt") {
            $0.contains { event in
                if case .failed(.unreachable(let place, _)) = event { return place == "127.0.0.1:\(port)" }
                return false
            }
        }
        // The back-off after a few failures is seconds to half a minute: a stop does not wait for it.
        await running.stop()
        #expect(running.events.last == .disconnected(nil))
    }

    @Test func aPauseLeavesTheBrokerUntilResumed() async throws {
        let broker = try await MosquittoBroker.start()
        let running = try Running(Self.options(broker, "pauses"))
        try await running.waitFor("connected") { $0.contains(.connected(generation: 1)) }
        running.client.pause()
        try await running.waitFor("left") { $0.contains(.disconnected(nil)) }
        #expect(!running.events.contains(.connected(generation: 2)))
        running.client.resume()
        try await running.waitFor("back") { $0.contains(.connected(generation: 2)) }
        await running.stop()
        try await broker.stop()
    }
}
