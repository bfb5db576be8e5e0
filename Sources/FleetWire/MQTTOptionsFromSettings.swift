import Foundation
import MQTT
import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// Why `[mqtt]` cannot be made into a connection: facts, for the program to turn into advice.
public enum MQTTSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `[mqtt] password-file` cannot be read, or anyone may read it (refused, as the
    /// collector refuses its own).
    case passwordFile(path: String, reason: String)

    /// The problem, naming the file.
    public var description: String {
        switch self {
        case .passwordFile(let path, let reason): return "[mqtt] password-file \(path): \(reason)"
        }
    }
}

extension MQTTOptions {
    /// How to reach `broker` as `[mqtt]` says: credentials (the password file read now,
    /// its text never shown), TLS files.
    public init(settings: MQTTSettings, broker: MQTTBroker, clientID: String) throws(MQTTSetupError) {
        self.init(host: broker.host, port: broker.port, clientID: clientID)
        tls = broker.tls
        caFile = settings.caFile
        certFile = settings.certFile
        keyFile = settings.keyFile
        username = settings.username
        password = settings.password
        if let file = settings.passwordFile {
            // A password anyone on the device may read is refused, never used (a group,
            // such as the service's `root:airloc 0640`, is the administrator's choice).
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
}
