import Foundation
import TestSupport
import Testing

/// The failover of docs/scaling.md's "High availability", as an operator runs it: a Patroni
/// pair (asynchronous replication, a one-node etcd, `ttl` 10 s), the collector on a
/// connection string naming both nodes, a logger on gpsfake. The standby's WAL stream is
/// cut, the leader's machine dies (Patroni and PostgreSQL SIGKILLed), and Patroni promotes
/// the standby by itself. The rows the dead leader had committed and the device was told
/// were stored come back from the device, each once. `make test-ha` runs it
/// (AIRLOC_TEST_HA=1, after installing patroni and etcd-server); `make test` has its faster
/// twin with `pg_ctl promote` (CollectorFailoverEndToEndTests).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AIRLOC_TEST_HA"] != nil))
struct CollectorPatroniEndToEndTests {
    @Test func patroniPromotesTheStandbyAndEveryRowEndsStoredOnce() async throws {
        let broker = try await MosquittoBroker.start()
        let cluster = try await PatroniCluster.start()
        defer { cluster.stop() }
        try await FailoverScenario.run(
            broker: broker, primary: cluster.nodes[0], standby: cluster.nodes[1], conninfo: cluster.conninfo,
            cut: { try await cluster.cutReplication(leader: 0, standby: 1) }, kill: { try await cluster.kill(0) },
            promote: { try await cluster.waitFor(1, ["leader"], deadline: .seconds(120)) }
        ) { outcome in
            #expect(outcome.lost >= 8, "the failover took back rows the device was told were stored")
            // The figures docs/scaling.md quotes (not asserted: they depend on the machine).
            print(
                "patroni failover: \(outcome.lost) acknowledged track rows lost; promoted \(outcome.promotion) after "
                    + "the leader died; whole again \(outcome.whole) after the promotion")
            #expect(
                outcome.logger.errors.contains("holds fewer rows than it acknowledged"),
                "\(outcome.logger.errors.suffix(2000))")
            let metrics = try await CollectorHostileEndToEndTests.metrics(outcome.metrics)
            #expect(
                metrics["airloc_collector_device_rewound_timestamp_seconds{device=\"\(outcome.device)\"}"] != nil,
                "\(metrics)")
        }
        try await broker.stop()
    }
}
