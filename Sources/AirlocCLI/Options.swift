import AirQuality
import Arguments
import Logbook
import Plot
import Settings

/// Every option airloc knows, each declared once: its name, its placeholder, its help in
/// the words most commands use, and what its value must be (``OptionReader``). Specs list
/// these (`.limit`; `.json.saying(...)` where a command says more), the parser checks the
/// typed ones before a command runs, and the code reads them typed
/// (`arguments.value(.limit, as: Int.self)`), so the name, the help, the check and the type
/// cannot drift apart. Where an option means something else in another command (`--format`),
/// that meaning is its own declaration under the same name.
extension OptionSpec {
    static let json = OptionSpec.flag("json", "print JSON")
    static let sensor = OptionSpec.value(
        "sensor", "NAME", "read only this sensor: sensor ([sensor]) or a [sensor.NAME]'s NAME")
    static let lat = OptionSpec.value("lat", "DEG", "latitude (-90...90), with --lon")
    static let lon = OptionSpec.value("lon", "DEG", "longitude (-180...180), with --lat")
    static let provider = OptionSpec.value(
        "provider", "NAME", "ask only this provider: gpsd, ip or manual (default: [location] providers)"
    ).reading(.choice(Settings.ProviderName.self))
    static let count = OptionSpec.value("count", "N", "with --watch: stop after N fixes").reading(
        .integer(in: 1...Int.max, expected: "a positive whole number"))
    static let offline = OptionSpec.flag("offline", "never ask the network")
    static let online = OptionSpec.flag("online", "ask the online service even when the offline data answers")
    static let reduced = OptionSpec.flag("reduced", "city-level accuracy only")
    static let clear = OptionSpec.flag("clear", "forget the chosen place")
    static let always = OptionSpec.flag("always", "also allow unattended use")
    static let units = OptionSpec.value(
        "units", "UNITS", "metric (°C) or imperial (°F); default: [display] units, else °F in the US"
    ).reading(.choice(TemperatureUnit.self))
    static let timeout = OptionSpec.value(
        "timeout", "S", "seconds to wait for a first GPS fix (default 10, [gpsd] timeout)"
    ).reading(.number(in: 0.1...3600, expected: "seconds between 0.1 and 3600"))
    static let source = OptionSpec.value("source", "TEXT", "source description stored in the file")
    static let scale = OptionSpec.value("scale", "SCALE", "us (US EPA AQI, default) or eu (European AQI)")
        .reading(.choice(AQIScale.self))
    static let postal = OptionSpec.value("postal", "\"CC CODE\"", "a postal code with its country, e.g. \"US 90210\"")
    static let output = OptionSpec.value("output", "FILE", "write FILE (0600) instead of stdout")
    static let near = OptionSpec.value(
        "near", "LAT,LON", "rank places near this point first (default: your manual location)")
    static let limit = OptionSpec.value("limit", "N", "at most N results (1-100, default 10)").reading(
        .integer(in: 1...100, expected: "a whole number from 1 to 100"))
    static let gpsd = OptionSpec.value("gpsd", "HOST:PORT", "gpsd to ask (default localhost:2947; also AIRLOC_GPSD)")
    static let from = OptionSpec.value("from", "DIR", "directory holding the GeoNames files")
    /// The report's format (`now`, `air`).
    static let format = OptionSpec.value(
        "format", "FORMAT", "text (default), json, or line (one line for status bars)")
    /// `log export`'s format.
    static let exportFormat = OptionSpec.value("format", "FORMAT", "ndjson, csv, gpx or geojson").reading(
        .choice(LogExport.Format.self))
    /// `log plot`'s format.
    static let plotFormat = OptionSpec.value("format", "FORMAT", "svg or png").reading(.choice(DayPlot.Format.self))
    static let country = OptionSpec.value("country", "CC", "only places in this country (ISO code or name)")
    static let watch = OptionSpec.flag(
        "watch", "keep the report current until interrupted (a redrawn card, or one report per change)")
    static let verbose = OptionSpec.flag("verbose", short: "v", "say what every provider did")
    static let refresh = OptionSpec.flag("refresh", "ask the services even when the cached answer is current")
    static let noReport = OptionSpec.flag("no-report", "only save the choice; print no air report")
    static let noClimate = OptionSpec.flag("no-climate", "skip the climate trend (one request fewer)")
    static let first = OptionSpec.flag("first", "take the best match even when the name is ambiguous")
    static let countries = OptionSpec.flag("countries", "list the supported countries with their code format")
    static let air = OptionSpec.flag("air", "continue into the air report for the first place")
    static let verify = OptionSpec.flag("verify", "check every reference in the file (a few hundred ms)")
    static let since = OptionSpec.value("since", "T", "rows from T on")
    static let until = OptionSpec.value("until", "T", "rows before T")
    static let kind = OptionSpec.value("kind", "KIND", "track, air, sensor or all (default all)").reading(
        .choice(LogExport.Kind.self))
    static let before = OptionSpec.value("before", "T", "delete rows older than T")
    static let dryRun = OptionSpec.flag("dry-run", "say what would be deleted, delete nothing")
    static let force = OptionSpec.flag("force", "allow a --before in the future")
    static let width = OptionSpec.value("width", "PX", "the figure's width (default 800; 250 for a small e-paper)")
        .reading(pixels)
    static let height = OptionSpec.value("height", "PX", "the figure's height (default 480; 122 for a small e-paper)")
        .reading(pixels)
    static let expires = OptionSpec.value(
        "expires", "T", "when the link stops working (a time, or a duration ahead: 7d)")
    static let service = OptionSpec.flag(
        "service", "check as airloc's systemd services run: their user, groups, devices, configuration (root)")
    static let list = OptionSpec.flag("list", "list the links")
    static let revoke = OptionSpec.value("revoke", "ID", "revoke link ID (from --list)")

    private static let pixels = OptionReader.integer(
        in: 64...8000, expected: "a whole number of pixels from 64 to 8000")
}
