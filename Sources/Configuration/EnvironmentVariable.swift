/// Every environment variable airloc reads, once: the man page's ENVIRONMENT section is
/// made from this table, and a test finds every variable the sources read in it.
public struct EnvironmentVariable: Sendable {
    /// Its name (`AIRLOC_GPSD`).
    public var name: String
    /// What it sets.
    public var meaning: String

    /// Every variable airloc reads.
    public static let all: [EnvironmentVariable] =
        [
            .init(
                name: "AIRLOC_CONFIG",
                meaning: "the user's configuration file instead of $XDG_CONFIG_HOME/airloc/airloc.conf"),
            .init(
                name: "AIRLOC_SYSTEM_CONFIG",
                meaning: "for root only: the administrator's file instead of /etc/airloc/airloc.conf (tests)"),
            .init(name: "AIRLOC_GPSD", meaning: "host:port of gpsd"),
            .init(name: "AIRLOC_DATA", meaning: "the place data file or its directory"),
            .init(name: "AIRLOC_LOG_DATABASE", meaning: "the logbook file"),
            .init(name: "AIRLOC_SENSOR_DEVICE", meaning: "the particulate sensor's serial device ([sensor] device)"),
            .init(
                name: "AIRLOC_RUNTIME_DIR",
                meaning: "where the logger's last-error note goes instead of /run/airloc (tests)"),
            .init(
                name: "AIRLOC_LOCK_DIR",
                meaning: "where the logger's sensor lock (LCK..ttyUSB0) is made; default /run/lock (tests)"),
            .init(name: "AIRLOC_MQTT_URL", meaning: "the MQTT broker the logger publishes to ([mqtt] url)"),
            .init(name: "AIRLOC_COLLECT_BROKER", meaning: "the broker airloc collect reads from ([collect] broker)"),
            .init(
                name: "AIRLOC_COLLECT_DATABASE",
                meaning: "the PostgreSQL database airloc collect stores into ([collect] database)"),
            .init(name: "AIRLOC_OPEN_METEO_API_KEY", meaning: "an Open-Meteo API key (commercial use)"),
        ]
        + ConfigurationFiles.environmentURLs.map {
            .init(name: $0.variable, meaning: "base URL of a web service ([services] \($0.key))")
        } + [
            .init(name: "NO_COLOR", meaning: "no colour, whatever the configuration says"),
            .init(name: "TERM", meaning: "dumb: no colour and no interactive picker"),
            .init(name: "SOURCE_DATE_EPOCH", meaning: "the build date data import writes into the place data"),
            .init(name: "HOME", meaning: "where the XDG directories are when their variables are unset"),
            .init(name: "XDG_CONFIG_HOME", meaning: "where the user's configuration lives (~/.config)"),
            .init(name: "XDG_STATE_HOME", meaning: "where the authorization and the logbook live (~/.local/state)"),
            .init(name: "XDG_CACHE_HOME", meaning: "where answers are cached (~/.cache)"),
            .init(name: "XDG_DATA_HOME", meaning: "where imported place data lives (~/.local/share)"),
            .init(
                name: "XDG_RUNTIME_DIR",
                meaning: "where the logger notes its last error when the logbook cannot take it, without /run/airloc"),
        ]
}
