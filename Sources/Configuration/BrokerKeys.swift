import FleetWire
import Settings

extension ConfigurationKey {
    /// A broker's keys (``BrokerSettings``), declared once for `[mqtt]` and `[collect]`:
    /// `urlKey` names the URL (`url`, `broker`), `passwordFileKey` the password file
    /// (`password-file`, `broker-password-file`); `inlinePassword` adds `password` (`[mqtt]`
    /// only: the collector's password is in a file). `change` reaches the section's broker.
    static func brokerKeys(
        _ section: String, url urlKey: String, passwordFile passwordFileKey: String, inlinePassword: Bool,
        _ change: @escaping @Sendable (inout Settings, (inout BrokerSettings) -> Void) -> Void
    ) -> [ConfigurationKey] {
        func file(_ name: String, _ set: @escaping @Sendable (inout BrokerSettings, String) -> Void) -> ConfigurationKey
        {
            text(section, name, "a file path") {
                !$0.isEmpty
            } set: { settings, value in
                change(&settings) { set(&$0, value) }
            }
        }
        var keys = [
            ConfigurationKey(section, urlKey, "mqtt://host[:port] or mqtts://host[:port] (TLS)") { settings, value in
                guard MQTTBroker(url: value) != nil else { return false }
                change(&settings) { $0.url = value }
                return true
            },
            file("ca-file") { $0.caFile = $1 },
            file("cert-file") { $0.certFile = $1 },
            file("key-file") { $0.keyFile = $1 },
            text(section, "username", "a user name") {
                !$0.isEmpty
            } set: { settings, value in
                change(&settings) { $0.username = value }
            },
        ]
        if inlinePassword {
            keys.append(
                text(section, "password", "a password (better: \(passwordFileKey))") {
                    !$0.isEmpty
                } set: { settings, value in
                    change(&settings) { $0.password = value }
                })
        }
        keys.append(file(passwordFileKey) { $0.passwordFile = $1 })
        keys.append(
            text(section, "client-id", "letters, digits, - and _", valid: isClientID) { settings, value in
                change(&settings) { $0.clientID = value }
            })
        return keys
    }
}
