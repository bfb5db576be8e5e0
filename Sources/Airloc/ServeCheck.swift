import Foundation
import Platform
import Web

extension HealthCheck {
    /// `[serve]` as `airloc serve` would meet it: the refusal to serve the position to the
    /// network without a password, the password file (there, readable by airloc, by its
    /// owner alone, not empty) and the address (free, or already served by `airloc serve`,
    /// or taken by another program).
    ///
    /// Contract: it binds the address for a moment and lets it go (never listens); when the
    /// port is taken it asks `GET /metrics` there on loopback, within 3 s, through
    /// `transport`, and sends nothing else. The password is never read into a message.
    public static func serve(_ settings: Settings, transport: any HTTPTransport = NetworkTransport()) async
        -> [HealthCheck]
    {
        let serve = settings.serve
        var checks: [HealthCheck] = []
        if let refusal = serve.refusal {
            checks.append(
                HealthCheck(
                    name: "serve", status: .fail, detail: refusal,
                    advice: "set [serve] password-file, or listen = 127.0.0.1:\(serve.port)"))
        }
        if let file = serve.passwordFile {
            do throws(SecretFile.Problem) {
                if try SecretFile.read(file).isEmpty {
                    checks.append(
                        HealthCheck(
                            name: "serve password", status: .fail, detail: "[serve] password-file \(file) is empty",
                            advice: "write the password on its first line"))
                } else {
                    checks.append(
                        HealthCheck(
                            name: "serve password", status: .ok,
                            detail: "[serve] password-file \(file): readable by its owner alone"))
                }
            } catch {
                let advice: String
                switch error {
                case .readableByOthers: advice = "chmod 600 \(file)"
                case .notAFile: advice = "point [serve] password-file at a file holding the password"
                case .unreadable: advice = "make \(file), owned by the user serve runs as (airloc), mode 0600"
                }
                checks.append(
                    HealthCheck(
                        name: "serve password", status: .fail, detail: "[serve] password-file \(file): \(error)",
                        advice: advice))
            }
        }
        checks.append(await address(serve, transport: transport))
        return checks
    }

    /// How much an address that cannot be served matters: the user chose it (or a password
    /// for it), or it is only the default.
    static func severity(_ serve: ServeSettings) -> Status {
        serve.listen != ServeSettings().listen || serve.passwordFile != nil ? .fail : .warn
    }

    /// The `listen` address: free, served by airloc, or taken. A problem with the default
    /// address is a warning (most devices never serve; another program may use 8642), with
    /// an address the user set, or a password for it, a failure.
    private static func address(_ serve: ServeSettings, transport: any HTTPTransport) async -> HealthCheck {
        let name = "serve address"
        let problem = severity(serve)
        switch ListeningPort.probe(host: serve.host, port: serve.port) {
        case .free:
            return HealthCheck(
                name: name, status: .ok, detail: "\(serve.listen) is free: airloc serve can listen there")
        case .unusable(let reason):
            return HealthCheck(
                name: name, status: problem, detail: "airloc serve cannot listen on \(serve.listen): \(reason)",
                advice: "set [serve] listen to an address of this machine and a port above 1023")
        case .taken:
            // Someone listens: airloc serve itself (the service running), or another program.
            let host = serve.host == "0.0.0.0" ? "127.0.0.1" : serve.host == "::" ? "::1" : serve.host
            let literal = host.contains(":") ? "[\(host)]" : host
            guard let url = URL(string: "http://\(literal):\(serve.port)/metrics") else {
                return HealthCheck(name: name, status: problem, detail: "\(serve.listen) is taken")
            }
            let answer = try? await transport.get(url, service: "the program on \(serve.listen)", timeout: .seconds(3))
            let body = answer.map { String(decoding: $0.body.prefix(1 << 16), as: UTF8.self) } ?? ""
            if let answer,
                (answer.status == 200 && body.contains("airloc_build_info"))
                    || (answer.status == 401 && body.contains("[serve] password-file"))
            {
                return HealthCheck(name: name, status: .ok, detail: "\(serve.listen) is served by airloc serve")
            }
            return HealthCheck(
                name: name, status: problem,
                detail: "\(serve.listen) is taken by another program"
                    + (answer.map { " (it answers HTTP \($0.status) and is not airloc serve)" } ?? ""),
                advice: "stop that program, or set [serve] listen to a free port")
        }
    }
}
