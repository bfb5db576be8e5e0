import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Two PostgreSQL servers under Patroni with a one-node etcd, all on loopback: the
/// high-availability pair docs/scaling.md describes, with asynchronous replication (Debian's
/// `patroni` 3.0 and `etcd-server` 3.4, installed by `make test-ha`).
///
/// Contract:
/// - ``start()`` returns once node 0 leads and node 1 streams from it (Patroni's REST API
///   says so, and the standby's WAL receiver runs); the leader key lives 10 s (`ttl`), so a
///   leader that dies is replaced about 10 s later.
/// - Run as root, Patroni and its servers run as the `postgres` user (PostgreSQL refuses
///   root), as ``PostgresServer`` does; each node's socket is in its own directory, so
///   ``nodes`` answer ``PostgresServer/query(_:database:)``.
/// - ``kill(_:)`` is a machine that dies: its Patroni and its postmaster SIGKILLed.
/// - ``stop()`` ends it all (a test's `defer`); the servers' directories go with the nodes.
public final class PatroniCluster: @unchecked Sendable {
    /// The nodes' servers, in the order of ``conninfo``'s hosts.
    public let nodes: [PostgresServer]
    private let rest: [Int]
    private let patroni: [ChildProcess]
    private let etcd: ChildProcess
    private let etcdDirectory: TemporaryDirectory
    private let stopped = Mutex<[Int32]>([])

    private init(
        nodes: [PostgresServer], rest: [Int], patroni: [ChildProcess], etcd: ChildProcess,
        etcdDirectory: TemporaryDirectory
    ) {
        (self.nodes, self.rest, self.patroni, self.etcd, self.etcdDirectory) =
            (nodes, rest, patroni, etcd, etcdDirectory)
    }

    /// A libpq connection string naming both nodes, for the one that takes writes (as an
    /// operator points the collector at a Patroni pair).
    public var conninfo: String {
        "host=127.0.0.1,127.0.0.1 port=\(nodes.map { String($0.port) }.joined(separator: ",")) dbname=postgres "
            + "user=postgres target_session_attrs=read-write connect_timeout=5"
    }

    public static func start() async throws -> PatroniCluster {
        guard let patroniBinary = ExternalTool.path(of: "patroni"), let etcdBinary = ExternalTool.path(of: "etcd")
        else {
            throw FixtureError("patroni and etcd are needed (make test-ha installs patroni and etcd-server)")
        }
        let etcdDirectory = try TemporaryDirectory()
        let (client, peer) = (try GPSFake.freePort(), try GPSFake.freePort())
        let etcd = try ChildProcess(
            etcdBinary,
            [
                "--name", "airloc", "--data-dir", etcdDirectory.file("etcd").path,
                "--listen-client-urls", "http://127.0.0.1:\(client)",
                "--advertise-client-urls", "http://127.0.0.1:\(client)",
                "--listen-peer-urls", "http://127.0.0.1:\(peer)",
                "--initial-advertise-peer-urls", "http://127.0.0.1:\(peer)",
                "--initial-cluster", "airloc=http://127.0.0.1:\(peer)",
            ], environment: ["PATH": "/usr/bin:/bin"])
        try await Poll.until("etcd serving clients") {
            etcd.errors.contains("serving insecure client requests") || !etcd.isRunning
        }
        guard etcd.isRunning else { throw FixtureError("etcd exited: \(etcd.errors.suffix(2000))") }
        let asPostgres = geteuid() == 0
        var nodes: [PostgresServer] = []
        var rest: [Int] = []
        var patroni: [ChildProcess] = []
        let scope = "airloc-\(UUID().uuidString.prefix(8).lowercased())"
        for index in 0..<2 {
            let directory = try TemporaryDirectory()
            let node = try PostgresServer.managed(port: try GPSFake.freePort(), directory: directory)
            let api = try GPSFake.freePort()
            let file = directory.file("patroni.yml")
            try Self.configuration(
                scope: scope, name: "node\(index)", api: api, etcd: client, server: node, directory: directory
            ).write(to: file, atomically: true, encoding: .utf8)
            if asPostgres {
                _ = try await ChildProcess.run(
                    "/bin/chown", ["-R", "postgres:postgres", directory.url.path], environment: [:])
                chmod(directory.url.path, 0o700)
            }
            let (program, arguments) =
                asPostgres
                ? ("/usr/sbin/runuser", ["-u", "postgres", "--", patroniBinary, file.path])
                : (patroniBinary, [file.path])
            let process = try ChildProcess(program, arguments, environment: ["PATH": "/usr/bin:/bin"])
            nodes.append(node)
            rest.append(api)
            patroni.append(process)
            // The first bootstraps and leads before the second starts (whichever starts
            // first takes etcd's initialize key); the second copies it and streams.
            let cluster = PatroniCluster(
                nodes: nodes, rest: rest, patroni: patroni, etcd: etcd, etcdDirectory: etcdDirectory)
            do {
                try await cluster.waitFor(index, index == 0 ? ["leader"] : ["streaming"])
            } catch {
                cluster.stop()
                throw error
            }
            if index == 1 { return cluster }
        }
        throw FixtureError("a Patroni pair has two nodes")
    }

    /// Node `index`'s role and state as its Patroni says (`GET /patroni`).
    public func role(_ index: Int) async -> (role: String, state: String, timeline: Int)? {
        let answer = try? await ChildProcess.run(
            "/usr/bin/curl", ["-sS", "--max-time", "5", "http://127.0.0.1:\(rest[index])/patroni"], environment: [:])
        guard let data = answer?.stdout.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let role = object["role"] as? String
        else { return nil }
        return (role, object["state"] as? String ?? "", object["timeline"] as? Int ?? 0)
    }

    /// Waits until node `index` is one of `roles`: `leader` (Patroni's `master` or
    /// `primary`), or `streaming` (a running replica whose WAL receiver streams).
    public func waitFor(_ index: Int, _ roles: Set<String>, deadline: Duration = .seconds(180)) async throws {
        do {
            try await Poll.until("Patroni node\(index) \(roles.sorted())", deadline: deadline) {
                guard let seen = await self.role(index), seen.state == "running" else { return false }
                if roles.contains("leader"), ["master", "primary"].contains(seen.role) { return true }
                guard roles.contains("streaming"), seen.role == "replica" else { return false }
                let receiving = try? await self.nodes[index].query("SELECT count(*) FROM pg_stat_wal_receiver")
                return receiving?.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
            }
        } catch {
            throw FixtureError("\(error)\n--- patroni node\(index)\n\(patroni[index].errors.suffix(3000))")
        }
    }

    /// The standby stops receiving WAL while everything else runs: the leader's WAL sender
    /// is SIGSTOPped, so what the leader commits from now on never leaves it, as with a
    /// network cut or a lagging asynchronous replica at the moment of a failover. (The
    /// standby's own receiver keeps running: a promotion stops it.)
    public func cutReplication(leader: Int, standby: Int) async throws {
        let pid = try await nodes[leader].query("SELECT pid FROM pg_stat_replication")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let number = Int32(pid) else { throw FixtureError("node\(leader) has no WAL sender: '\(pid)'") }
        Glibc.kill(number, SIGSTOP)
        stopped.withLock { $0.append(number) }
        // Replayed up to what it received: from here on what it holds is fixed.
        try await Poll.until("node\(standby) replayed what it received") {
            (try await self.nodes[standby].query("SELECT pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn()"))
                .trimmingCharacters(in: .whitespacesAndNewlines) == "t"
        }
    }

    /// Node `index`'s machine dies: its Patroni, its postmaster and a WAL sender stopped
    /// by ``cutReplication(leader:standby:)`` SIGKILLed, waited for.
    public func kill(_ index: Int) async throws {
        patroni[index].stop()
        try await nodes[index].kill()
        for pid in stopped.withLock({ $0 }) { Glibc.kill(pid, SIGKILL) }
    }

    /// Everything stopped (the servers immediately: the test is over).
    public func stop() {
        for process in patroni { process.stop() }
        for pid in stopped.withLock({ $0 }) { Glibc.kill(pid, SIGKILL) }
        etcd.stop()
        etcdDirectory.remove()
    }

    static func configuration(
        scope: String, name: String, api: Int, etcd: Int, server: PostgresServer, directory: TemporaryDirectory
    ) -> String {
        """
        scope: \(scope)
        name: \(name)
        log:
          level: WARNING
        restapi:
          listen: 127.0.0.1:\(api)
          connect_address: 127.0.0.1:\(api)
        etcd3:
          hosts: 127.0.0.1:\(etcd)
        bootstrap:
          dcs:
            ttl: 10
            loop_wait: 1
            retry_timeout: 4
            maximum_lag_on_failover: 1073741824
            postgresql:
              use_pg_rewind: false
              parameters:
                wal_level: replica
                hot_standby: "on"
                max_wal_senders: 5
                max_replication_slots: 5
                wal_keep_size: 64MB
                fsync: "off"
          initdb:
            - encoding: UTF8
            - auth: trust
          pg_hba:
            - local all all trust
            - host all all 127.0.0.1/32 trust
            - host replication all 127.0.0.1/32 trust
        postgresql:
          listen: 127.0.0.1:\(server.port)
          connect_address: 127.0.0.1:\(server.port)
          data_dir: \(server.data.path)
          bin_dir: \(server.binaries.path)
          pgpass: \(directory.file("pgpass").path)
          authentication:
            superuser:
              username: postgres
            replication:
              username: postgres
          parameters:
            unix_socket_directories: \(directory.url.path)
            max_connections: 50

        """
    }
}
