import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL server of a test's own: `initdb` into a temporary directory and
/// `pg_ctl start` on a free port, its socket in that directory, no root needed.
///
/// Contract:
/// - PostgreSQL refuses to run as root: started as root (CI), the cluster belongs to the
///   `postgres` user Debian's package makes, and every server command runs as that user
///   (`runuser -u postgres`); started as anyone else, it runs as them. Either way its
///   superuser is named `postgres` and local connections need no password.
/// - ``start()`` returns once the server accepts connections (`pg_ctl -w`); ``stop()``
///   is a fast shutdown; the same
///   cluster and port can be started again. Under `CI=true` a missing server is a failure.
public final class PostgresServer: @unchecked Sendable {
    public let port: Int
    public let directory: TemporaryDirectory
    public let binaries: URL
    private let asPostgres: Bool

    public var data: URL { directory.file("data") }
    /// A libpq connection string for its `postgres` database.
    public var conninfo: String { "host=\(directory.url.path) port=\(port) dbname=postgres user=postgres" }

    private init(port: Int, directory: TemporaryDirectory, binaries: URL, asPostgres: Bool) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.asPostgres = asPostgres
    }

    /// Debian's server binaries (/usr/lib/postgresql/<version>/bin), the newest there is.
    public static func binaryDirectory() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap { Int($0) }.sorted().reversed()
            .map { root.appendingPathComponent("\($0)/bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("pg_ctl").path) }
    }

    public static func start() async throws -> PostgresServer {
        guard let binaries = binaryDirectory() else {
            throw FixtureError("PostgreSQL's server is needed but not installed (make test installs postgresql)")
        }
        let server = PostgresServer(
            port: try GPSFake.freePort(), directory: try TemporaryDirectory(), binaries: binaries,
            asPostgres: geteuid() == 0)
        if server.asPostgres {
            try await server.command("/bin/chown", ["-R", "postgres:postgres", server.directory.url.path], root: true)
            chmod(server.directory.url.path, 0o700)
        }
        try await server.command(
            server.binaries.appendingPathComponent("initdb").path,
            ["-D", server.data.path, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
        let settings = """
            listen_addresses = ''
            unix_socket_directories = '\(server.directory.url.path)'
            port = \(server.port)
            fsync = off
            max_connections = 50

            """
        let configuration = server.data.appendingPathComponent("postgresql.conf")
        try await server.command("/bin/sh", ["-c", "cat >> '\(configuration.path)'"], stdin: settings)
        try await server.start()
        return server
    }

    /// A server another program runs (Patroni): on `port`, its data in `directory`/data and
    /// its socket in `directory`, made neither by ``start()`` nor ``standby(of:)``. Queries
    /// and ``kill()`` work as on the others; at the end it is stopped and its directory
    /// removed like theirs.
    public static func managed(port: Int, directory: TemporaryDirectory) throws -> PostgresServer {
        guard let binaries = binaryDirectory() else {
            throw FixtureError("PostgreSQL's server is needed but not installed (make test installs postgresql)")
        }
        return PostgresServer(port: port, directory: directory, binaries: binaries, asPostgres: geteuid() == 0)
    }

    /// A streaming standby of `primary` (`pg_basebackup -R`, WAL streamed), started on a
    /// port and socket directory of its own: what a failover promotes.
    public static func standby(of primary: PostgresServer) async throws -> PostgresServer {
        let server = PostgresServer(
            port: try GPSFake.freePort(), directory: try TemporaryDirectory(), binaries: primary.binaries,
            asPostgres: primary.asPostgres)
        if server.asPostgres {
            try await server.command("/bin/chown", ["-R", "postgres:postgres", server.directory.url.path], root: true)
            chmod(server.directory.url.path, 0o700)
        }
        try await server.command(
            server.binaries.appendingPathComponent("pg_basebackup").path,
            [
                "-h", primary.directory.url.path, "-p", "\(primary.port)", "-U", "postgres", "-D", server.data.path,
                "-X", "stream", "-R", "--no-sync",
            ])
        // The copy has the primary's settings: its own port and socket come after them.
        let settings = "port = \(server.port)\nunix_socket_directories = '\(server.directory.url.path)'\n"
        let configuration = server.data.appendingPathComponent("postgresql.conf")
        try await server.command("/bin/sh", ["-c", "cat >> '\(configuration.path)'"], stdin: settings)
        try await server.start()
        return server
    }

    /// A standby stops receiving WAL (its `primary_conninfo` emptied and reloaded): what
    /// its primary commits from now on, it never has, as with a network cut or a lagging
    /// asynchronous replica at the moment of a failover.
    public func cutReplication() async throws {
        _ = try await query("ALTER SYSTEM SET primary_conninfo = ''")
        _ = try await query("SELECT pg_reload_conf()")
        try await Poll.until("the standby's WAL receiver stopped") {
            (try await self.query("SELECT count(*) FROM pg_stat_wal_receiver"))
                .trimmingCharacters(in: .whitespacesAndNewlines) == "0"
        }
        // What it received before the cut is replayed too, so that what it holds is fixed
        // from here on.
        try await Poll.until("the standby replayed all it received") {
            (try await self.query("SELECT pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn()"))
                .trimmingCharacters(in: .whitespacesAndNewlines) == "t"
        }
    }

    /// A standby becomes a primary on a new timeline (`pg_ctl promote`, waited for).
    public func promote() async throws {
        try await command(binaries.appendingPathComponent("pg_ctl").path, ["-D", data.path, "-w", "promote"])
    }

    /// SIGKILL to the postmaster, as a machine that died; waited for until it is gone. Its
    /// directory can be started again (crash recovery), as it was.
    public func kill() async throws {
        let pidFile = data.appendingPathComponent("postmaster.pid")
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let pid = Int32(text.split(separator: "\n").first ?? "")
        else { throw FixtureError("no postmaster.pid in \(data.path)") }
        Glibc.kill(pid, SIGKILL)
        // pg_ctl's daemon belongs to init, which in a container may never reap it: a zombie
        // is gone too. PostgreSQL would take the zombie for a live postmaster (its pid
        // answers kill 0), so its lock files go with it, as a reboot would clear them.
        try await Poll.until("the postmaster is gone") {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return Glibc.kill(pid, 0) != 0 || stat.contains(") Z ")
        }
        try? FileManager.default.removeItem(at: pidFile)
        try? FileManager.default.removeItem(at: directory.file(".s.PGSQL.\(port).lock"))
    }

    /// Starts (or starts again) the server and waits until it accepts connections.
    public func start() async throws {
        try await command(
            binaries.appendingPathComponent("pg_ctl").path,
            ["-D", data.path, "-l", directory.file("server.log").path, "-w", "-t", "120", "start"])
    }

    /// A fast shutdown (what a restart of the service does), waited for.
    public func stop() async throws {
        try await command(
            binaries.appendingPathComponent("pg_ctl").path, ["-D", data.path, "-m", "fast", "-w", "-t", "120", "stop"])
    }

    /// Runs `sql` with psql and returns its unaligned, tuples-only output.
    public func query(_ sql: String, database: String = "postgres") async throws -> String {
        let psql = binaries.appendingPathComponent("psql").path
        let result = try await ChildProcess.run(
            psql,
            [
                "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", directory.url.path, "-p", "\(port)", "-U", "postgres",
                "-d", database, "-c", sql,
            ],
            environment: ["PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "30"])
        guard result.status == 0 else { throw FixtureError("psql \(sql): \(result.stderr)") }
        return result.stdout
    }

    /// Sets a server setting for every session, as an administrator would
    /// (`ALTER SYSTEM`, then a reload: sessions already open take it too). Its own session
    /// is never read-only, so a server made read-only this way can be made writable again.
    public func configure(_ setting: String, _ value: String) async throws {
        let psql = binaries.appendingPathComponent("psql").path
        for sql in ["ALTER SYSTEM SET \(setting) = '\(value)'", "SELECT pg_reload_conf()"] {
            let result = try await ChildProcess.run(
                psql,
                ["-X", "-q", "-At", "-h", directory.url.path, "-p", "\(port)", "-U", "postgres", "-c", sql],
                environment: [
                    "PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "30",
                    "PGOPTIONS": "-c default_transaction_read_only=off",
                ])
            guard result.status == 0 else { throw FixtureError("psql \(sql): \(result.stderr)") }
        }
    }

    /// Makes `role` (a login with `password`) the one that must give its password, as a
    /// production server asks every role: a `scram-sha-256` line ahead of the cluster's
    /// `trust` lines, and the configuration reloaded.
    public func requirePassword(role: String, password: String) async throws {
        _ = try await query("CREATE ROLE \(role) LOGIN PASSWORD '\(password)' CREATEDB")
        let hba = data.appendingPathComponent("pg_hba.conf")
        try await command(
            "/bin/sh",
            [
                "-c",
                "{ echo 'local all \(role) scram-sha-256'; cat '\(hba.path)'; } > '\(hba.path).new' "
                    + "&& mv '\(hba.path).new' '\(hba.path)'",
            ])
        _ = try await query("SELECT pg_reload_conf()")
    }

    /// `pg_dump -Fc` of `database` into a file of the server's directory: a backup.
    public func dump(database: String = "postgres") async throws -> URL {
        let file = directory.file("backup-\(UUID().uuidString).dump")
        try await client("pg_dump", ["-Fc", "-f", file.path, "-d", database])
        return file
    }

    /// A ``dump(database:)`` restored into `database` made again, as docs/collector.md says
    /// (`pg_restore --clean` cannot drop a partitioned table's partitions' keys).
    public func restore(_ file: URL, database: String = "postgres") async throws {
        try await client("dropdb", ["--force", "--maintenance-db=template1", database])
        try await client("createdb", ["--maintenance-db=template1", database])
        try await client("pg_restore", ["--single-transaction", "-d", database, file.path])
    }

    private func client(_ program: String, _ arguments: [String]) async throws {
        let result = try await ChildProcess.run(
            binaries.appendingPathComponent(program).path,
            ["-h", directory.url.path, "-p", "\(port)", "-U", "postgres"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "30"], timeout: 180)
        guard result.status == 0 else { throw FixtureError("\(program): \(result)") }
    }

    @discardableResult
    private func command(_ executable: String, _ arguments: [String], stdin: String? = nil, root: Bool = false)
        async throws -> ChildProcess.Result
    {
        let (program, words) =
            asPostgres && !root
            ? ("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
            : (executable, arguments)
        let result = try await ChildProcess.run(
            program, words, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"], stdin: stdin, timeout: 180)
        guard result.status == 0 else {
            let log = (try? String(contentsOf: directory.file("server.log"), encoding: .utf8)) ?? ""
            throw FixtureError("\(executable) \(arguments.joined(separator: " ")): \(result)\n\(log.suffix(2000))")
        }
        return result
    }

    deinit {
        if FileManager.default.fileExists(atPath: data.appendingPathComponent("postmaster.pid").path) {
            _ = try? ChildProcess.runBlocking(
                asPostgres ? "/usr/sbin/runuser" : binaries.appendingPathComponent("pg_ctl").path,
                (asPostgres ? ["-u", "postgres", "--", binaries.appendingPathComponent("pg_ctl").path] : [])
                    + ["-D", data.path, "-m", "immediate", "-w", "stop"],
                environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
        }
        directory.remove()
    }
}
