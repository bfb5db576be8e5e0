import Foundation
import Platform
import Settings
import Web

extension HealthCheck {
    /// An address one of airloc's servers is to listen on (`[serve] listen`, `[collect]
    /// metrics`): free, already served by that server (the service running), or taken by
    /// another program.
    ///
    /// Contract: it binds the address for a moment and lets it go (never listens); when the
    /// port is taken it asks `GET /metrics` there on loopback, within 3 s, through
    /// `transport`, sends nothing else, and takes the answer as the server's when `isOurs`
    /// says so.
    static func listenAddress(
        name: String, server: String, setting: String, host: String, port: Int, problem: Status,
        transport: any HTTPTransport, isOurs: (_ status: Int, _ body: String) -> Bool
    ) async -> HealthCheck {
        let listen = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        switch ListeningPort.probe(host: host, port: port) {
        case .free:
            return HealthCheck(name: name, status: .ok, detail: "\(listen) is free: \(server) can listen there")
        case .unusable(let reason):
            return HealthCheck(
                name: name, status: problem, detail: "\(server) cannot listen on \(listen): \(reason)",
                advice: "set \(setting) to an address of this machine and a port above 1023")
        case .taken:
            // Someone listens: the server itself (the service running), or another program.
            let near = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
            let literal = near.contains(":") ? "[\(near)]" : near
            guard let url = URL(string: "http://\(literal):\(port)/metrics") else {
                return HealthCheck(name: name, status: problem, detail: "\(listen) is taken")
            }
            let answer = try? await transport.get(url, service: "the program on \(listen)", timeout: .seconds(3))
            let body = answer.map { String(decoding: $0.body.prefix(1 << 16), as: UTF8.self) } ?? ""
            if let answer, isOurs(answer.status, body) {
                return HealthCheck(name: name, status: .ok, detail: "\(listen) is served by \(server)")
            }
            return HealthCheck(
                name: name, status: problem,
                detail: "\(listen) is taken by another program"
                    + (answer.map { " (it answers HTTP \($0.status) and is not \(server))" } ?? ""),
                advice: "stop that program, or set \(setting) to a free port")
        }
    }

    /// `[collect] metrics` as `airloc collect` would meet it (none when it is not set): a
    /// taken address is a failure, since the collector would not start.
    public static func collectMetrics(_ settings: Settings, transport: any HTTPTransport = NetworkTransport()) async
        -> [HealthCheck]
    {
        guard let host = settings.collect.metricsHost else { return [] }
        return [
            await listenAddress(
                name: "collect metrics", server: "airloc collect", setting: "[collect] metrics", host: host,
                port: settings.collect.metricsPort, problem: .fail, transport: transport
            ) { status, body in status == 200 && body.contains("airloc_collector_devices") }
        ]
    }
}
