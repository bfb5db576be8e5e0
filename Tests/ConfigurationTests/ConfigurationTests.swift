import AirQuality
import Airloc
import Foundation
import Settings
import TestSupport
import Testing

@testable import Configuration

@Suite struct ConfigurationTests {
    func load(_ text: String, extra: [String: String] = [:]) throws(ConfigurationError) -> Settings {
        let directory = try! TemporaryDirectory()
        defer { directory.remove() }
        try! text.write(to: directory.file("airloc.conf"), atomically: true, encoding: .utf8)
        var environment = ["HOME": directory.url.path, "AIRLOC_SYSTEM_CONFIG": directory.file("none").path]
        for (key, value) in extra { environment[key] = value }
        return try ConfigurationFiles.load(environment: environment, explicitPath: directory.file("airloc.conf").path)
    }

    /// A collector's fleet stores the track in the operator's own database: the exact
    /// position by default there; anywhere else the coarse grid; what is written wins.
    @Test func aCollectorsFleetPublishesTheExactPositionUnlessToldOtherwise() throws {
        #expect(try load("[mqtt]\nurl = mqtt://b\n").mqtt.position == .coarse)
        #expect(try load("[mqtt]\nurl = mqtt://b\nend-to-end = collector\n").mqtt.position == .exact)
        #expect(
            try load("[mqtt]\nurl = mqtt://b\nend-to-end = collector\nposition = coarse\n").mqtt.position == .coarse)
    }

    /// A 107 MB file took 536 MB to load: a file over a mebibyte is refused, saying so.
    @Test func aHugeFileIsRefusedBeforeItIsRead() throws {
        let huge = "[log]\n" + String(repeating: "; padding padding padding padding padding padding\n", count: 25_000)
        do {
            _ = try load(huge)
            Issue.record("a \(huge.utf8.count)-byte file was read")
        } catch {
            #expect(error.message.contains("a configuration file is at most 1024 KiB"), "\(error.message)")
        }
        #expect(try load("[log]\n" + String(repeating: "; padding\n", count: 1_000)).logTrigger.trackInterval == 5)
    }

    @Test func readsEveryDocumentedSection() throws {
        let configuration = try load(
            """
            ; comment
            [gpsd]
            host = gps.local
            port = 2950
            timeout = 4.5
            [services]
            air-quality-url = http://127.0.0.1:8080
            [privacy]
            outbound-precision = 0.1
            [location]
            latitude = 52.5
            longitude = 13.4
            [display]
            color = never
            """)
        #expect(configuration.gpsd.host == "gps.local" && configuration.gpsd.port == 2950)
        #expect(configuration.gpsdTimeout == 4.5)
        #expect(configuration.airQualityURL.base.absoluteString == "http://127.0.0.1:8080")
        #expect(configuration.outboundPrecision == 0.1)
        #expect(configuration.manualLatitude == 52.5 && configuration.manualLongitude == 13.4)
        #expect(configuration.color == .never)
    }

    @Test func theExampleConfigIsValid() throws {
        let text = try String(contentsOf: PackagePaths.file("config/airloc.conf"), encoding: .utf8)
        _ = try load(text)
    }

    @Test func unknownKeyNamesFileLineAndSuggests() {
        do {
            _ = try load("[gpsd]\nhost = x\nprot = 2947\n")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("airloc.conf:3: unknown key 'prot' in [gpsd] (did you mean 'port'?)"))
        }
    }

    /// A key written before any section header names the section it belongs in, not
    /// "unknown section []".
    @Test func aKeyBeforeAnySectionSaysWhereItGoes() {
        do {
            _ = try load("track-interval = 5\n[gpsd]\nhost = x\n")
            Issue.record("expected an error")
        } catch {
            #expect(
                error.message.contains("airloc.conf:1: 'track-interval' comes before any section"), "\(error.message)")
            #expect(error.message.contains("[log]") && !error.message.contains("[]"), "\(error.message)")
        }
    }

    @Test func badValueSaysWhatWasExpected() {
        do {
            _ = try load("[privacy]\n\noutbound-precision = fine\n")
            Issue.record("expected an error")
        } catch {
            #expect(
                error.message.contains("airloc.conf:3: invalid value 'fine' for outbound-precision: expected degrees"))
        }
    }

    @Test func syntaxErrorHasItsLine() {
        do {
            _ = try load("[gpsd]\nhost = a\nthis line is broken\n")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("airloc.conf:3:"))
        }
    }

    @Test func usersCannotSetTheAdministratorsPolicy() {
        #expect(throws: ConfigurationError.self) { try load("[authorization]\npolicy = allow\n") }
    }

    @Test func environmentOverridesFiles() throws {
        let configuration = try load(
            "[gpsd]\nport = 1\n",
            extra: ["AIRLOC_GPSD": "[::1]:2999", "AIRLOC_POSTAL_URL": "http://127.0.0.1:1234"])
        #expect(configuration.gpsd.host == "::1" && configuration.gpsd.port == 2999)
        #expect(configuration.postalURL.base.absoluteString == "http://127.0.0.1:1234")
    }

    @Test func badEnvironmentValuesAreConfigErrors() {
        #expect(throws: ConfigurationError.self) { try load("", extra: ["AIRLOC_GPSD": "host:99999"]) }
        #expect(throws: ConfigurationError.self) { try load("", extra: ["AIRLOC_AIR_QUALITY_URL": "ftp://x"]) }
    }

    @Test func theReportsKeysWithTheirForms() throws {
        let configuration = try load(
            """
            [services]
            deadline = 20
            open-meteo-api-key = abc-DEF_123
            [cache]
            max-stale = 90m
            [display]
            units = imperial
            scale = eu
            """)
        #expect(configuration.serviceDeadline == 20 && configuration.openMeteoAPIKey == "abc-DEF_123")
        #expect(configuration.maxStale == 5400)
        #expect(configuration.units == TemperatureUnit.imperial && configuration.scale == AQIScale.eu)
        #expect(try load("[display]\nunits = auto\n").units == nil, "auto: by the place's country")
        #expect(ConfigurationFiles.parseDuration("6h") == 21_600 && ConfigurationFiles.parseDuration("0") == 0)
        #expect(ConfigurationFiles.parseDuration("45") == 45 && ConfigurationFiles.parseDuration("2d") == 172_800)
        for bad in ["8d", "-1h", "h", "6 hours", ""] { #expect(ConfigurationFiles.parseDuration(bad) == nil, "\(bad)") }
        #expect(throws: ConfigurationError.self) { try load("[services]\nopen-meteo-api-key = a&b=c\n") }
        #expect(throws: ConfigurationError.self) { try load("[display]\nscale = uk\n") }
        let fromEnvironment = try load("", extra: ["AIRLOC_OPEN_METEO_API_KEY": "k-1"])
        #expect(fromEnvironment.openMeteoAPIKey == "k-1")
    }

    /// The manual location is coordinates (both) or a place: half or both is a mistake
    /// that must not quietly pick one.
    @Test func aHalfOrDoubleManualLocationIsAnErrorWithItsLine() throws {
        for (text, expected) in [
            ("[location]\nlatitude = 52.5\n", "airloc.conf:2: [location] latitude without longitude"),
            ("[location]\n\nlongitude = 13.4\n", "airloc.conf:3: [location] longitude without latitude"),
            ("[location]\nlatitude = 52.5\nlongitude = 13.4\nplace = Berlin\n", "airloc.conf:4: [location] has both"),
        ] {
            do {
                _ = try load(text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        #expect(try load("[location]\nplace = Berlin\n").manualOrigin?.hasSuffix("airloc.conf:2") == true)
    }

    @Test func gpsdAddressForms() throws {
        #expect(try ConfigurationFiles.parseGPSD("localhost", origin: "x") == .init(host: "localhost", port: 2947))
        #expect(
            try ConfigurationFiles.parseGPSD("10.0.0.2:2948", origin: "x") == .init(host: "10.0.0.2", port: 2948))
        #expect(throws: ConfigurationError.self) { try ConfigurationFiles.parseGPSD("host:port", origin: "x") }
    }

    /// An API key that is not one may still be someone's secret: the error says what is
    /// wrong and where, not the value.
    @Test func anInvalidSecretIsNotRepeated() {
        do {
            _ = try load("[services]\nopen-meteo-api-key = s3cret&x\n")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("airloc.conf:2: invalid value for open-meteo-api-key"), "\(error)")
            #expect(!error.message.contains("s3cret"))
        }
    }

    /// Every key is declared once (ConfigurationKey.all): no key twice, and each one is
    /// in the commented example a user copies and in docs/configuration.md.
    @Test func everyKeyIsDeclaredOnceAndDocumented() throws {
        let keys = ConfigurationKey.all.map { "[\($0.section)] \($0.name)" }
        #expect(Set(keys).count == keys.count, "a key declared twice")
        let example = try String(contentsOf: PackagePaths.file("config/airloc.conf"), encoding: .utf8)
        let docs = try String(contentsOf: PackagePaths.file("docs/configuration.md"), encoding: .utf8)
        for key in ConfigurationKey.all {
            #expect(example.contains("\(key.name) ="), "\(key.name) is missing from config/airloc.conf")
            #expect(docs.contains(key.name), "\(key.name) is missing from docs/configuration.md")
        }
    }
}

/// The man page's environment list is the one table, and the table knows every variable
/// the sources read (AIRLOC_MQTT_URL was missing from the hand-written list).
struct EnvironmentTableTests {
    @Test func everyVariableTheSourcesReadIsInTheTable() throws {
        let known = Set(EnvironmentVariable.all.map(\.name))
        #expect(known.count == EnvironmentVariable.all.count, "a variable listed twice")
        let sources = PackagePaths.file("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            // The bench and the fuzz targets are tools of the repository, not what airloc reads.
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("Bench/") && !$0.hasPrefix("FuzzTargets/") }
        let read = try NSRegularExpression(pattern: #"environment\["([A-Z][A-Z0-9_]*)"\]|"(XDG_[A-Z]+_HOME)""#)
        var found = Set<String>()
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in read.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                for group in 1...2 {
                    if let range = Range(match.range(at: group), in: text) { found.insert(String(text[range])) }
                }
            }
        }
        #expect(found.contains("AIRLOC_MQTT_URL") && found.contains("XDG_STATE_HOME"), "the scan finds reads: \(found)")
        #expect(
            found.subtracting(known).isEmpty, "read but not in EnvironmentVariable.all: \(found.subtracting(known))")
    }
}
