import FleetWire
import Foundation
import Platform
import Settings

#if canImport(Glibc)
    import Glibc
#endif

/// Why a broker's settings cannot be made into a connection: facts, for the program to word
/// with its section and keys (`[mqtt] password-file`, `[collect] broker-password-file`).
public enum BrokerSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not an MQTT URL (shown without any password in it).
    case url(String)
    /// The password file cannot be read, or someone it should not may read it.
    case passwordFile(path: String, reason: String)

    /// The problem, naming the file or the URL.
    public var description: String {
        switch self {
        case .url(let url): return "\(CredentialText.masked(url)) is not an MQTT URL"
        case .passwordFile(let path, let reason): return "\(path): \(reason)"
        }
    }
}

extension MQTTOptions {
    /// How to reach the broker `settings` name, as `clientID`: the one place a broker's
    /// settings become a connection's options, for `[mqtt]` and `[collect]` alike. The
    /// password file is read now, its text never shown: with `ownerOnly` (the collector's)
    /// only its owner may read it (0600); otherwise others may not (a group such as the
    /// logger service's `root:airloc 0640` is the administrator's choice).
    public init(broker settings: BrokerSettings, clientID: String, ownerOnly: Bool = false) throws(BrokerSetupError) {
        guard let url = settings.url, let broker = MQTTBroker(url: url) else { throw .url(settings.url ?? "") }
        self.init(host: broker.host, port: broker.port, clientID: clientID)
        tls = broker.tls
        caFile = settings.caFile
        certFile = settings.certFile
        keyFile = settings.keyFile
        username = settings.username
        password = settings.password
        guard let file = settings.passwordFile else { return }
        if ownerOnly {
            do { password = try SecretFile.read(file) } catch {
                if case .readableByOthers = error {
                    throw .passwordFile(path: file, reason: "\(error): chmod 600 \(file)")
                }
                throw .passwordFile(path: file, reason: error.description)
            }
            return
        }
        var info = stat()
        if stat(file, &info) == 0, info.st_mode & 0o004 != 0 {
            throw .passwordFile(
                path: file,
                reason: "others may read it (mode \(String(info.st_mode & 0o777, radix: 8))): chmod o-r \(file)")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw .passwordFile(path: file, reason: "cannot be read")
        }
        password = text.trimmingCharacters(in: .newlines)
    }
}
