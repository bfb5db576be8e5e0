import Foundation
import Platform
import Settings
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
                _ = try SecretFile.read(file)
                checks.append(
                    HealthCheck(
                        name: "serve password", status: .ok,
                        detail: "[serve] password-file \(file): readable by its owner alone"))
            } catch {
                let advice: String
                switch error {
                case .readableByOthers: advice = "chmod 600 \(file)"
                case .notAFile: advice = "point [serve] password-file at a file holding the password"
                case .unreadable: advice = "make \(file), owned by the user serve runs as (airloc), mode 0600"
                case .empty: advice = "write the password on its first line"
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

    /// The `listen` address: free, served by airloc serve (its metrics, or its 401), or
    /// taken. A problem with the default address is a warning (most devices never serve;
    /// another program may use 8642), with an address the user set, or a password for it,
    /// a failure.
    private static func address(_ serve: ServeSettings, transport: any HTTPTransport) async -> HealthCheck {
        await listenAddress(
            name: "serve address", server: "airloc serve", setting: "[serve] listen", host: serve.host,
            port: serve.port, problem: severity(serve), transport: transport
        ) { status, body in
            (status == 200 && body.contains("airloc_build_info"))
                || (status == 401 && body.contains("[serve] password-file"))
        }
    }
}
