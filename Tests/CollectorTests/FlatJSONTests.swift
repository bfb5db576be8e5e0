import Foundation
import TestSupport
import Testing

@testable import Collector

/// The collector's one-pass reader of a published row against Foundation's JSON parser:
/// the same verdict (a JSON object or not) on rows and on thousands of damaged copies of
/// them, and the same top-level values.
@Suite struct FlatJSONTests {
    static let samples = [
        DeviceRowTests.track,
        #"{"schema":"airloc.log/1","id":"a7","kind":"air","time":"2026-11-18T10:00:00Z","latitude":-33.8688,"longitude":151.2093,"place":"Zürich, \"Kreis 1\" \u00e9\n","us_aqi":41,"pollen":{"grass":[1,2.5e-3,{"a":null}],"birch":null},"pm2_5":8.8,"european_aqi":22,"source":"live","segment":1}"#,
        #"{"schema":"airloc.log/1","id":"s3","kind":"sensor","time":"2026-11-18T10:00:05Z","model":"sds011","pm2_5":1E+2,"pm10":-0.0,"flags":["humidity","warm\/up"],"name":"co2 \uD83D\uDE00","samples":10}"#,
        #"  { "a" : [ ] , "b" : { } , "c" : "" , "d" : -0 , "e" : 1.5E-7 }  "#,
        "{}",
    ]

    /// Foundation's verdict and top-level members.
    static func foundation(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    @Test func rowsAreReadAsFoundationReadsThem() throws {
        for sample in Self.samples {
            let flat = try #require(FlatJSON(sample), "\(sample)")
            let expected = try #require(Self.foundation(sample))
            #expect(Set(flat.members.keys) == Set(expected.keys))
            for (name, value) in expected {
                switch flat[name] {
                case .string(let text)?: #expect(text == value as? String, "\(name)")
                case .number(let number)?: #expect(number == (value as? NSNumber)?.doubleValue, "\(name)")
                case .strings(let words)?: #expect(words == value as? [String], "\(name)")
                case .null?: #expect(value is NSNull, "\(name)")
                case .bool(let flag)?: #expect(flag == (value as? Bool), "\(name)")
                case .other?: #expect(value is [String: Any] || value is [Any], "\(name)")
                case nil: Issue.record("\(name) missing")
                }
            }
        }
        let sensor = try #require(FlatJSON(Self.samples[2]))
        #expect(sensor["name"] == .string("co2 😀") && sensor["flags"] == .strings(["humidity", "warm/up"]))
    }

    /// 20,000 damaged copies (a byte deleted, inserted or replaced by one JSON cares
    /// about): the same verdict as Foundation's on every one, and never a trap.
    @Test func damagedRowsGetFoundationsVerdict() {
        var random = SplitMix(seed: 0x5eed)
        let alphabet = Array(#"{}[]",:-+.0123456789eEtrufalsn \u\"#.utf8) + [0x0A, 0x01, 0xC3, 0xA9]
        var disagreements: [String] = []
        for round in 0..<20_000 {
            var bytes = Array(Self.samples[round % 3].utf8)
            for _ in 0...Int(random.next() % 3) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                default: bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                }
                if bytes.isEmpty { bytes = Array("x".utf8) }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            // Foundation takes a trailing comma (`,}`); JSON, PostgreSQL's jsonb and the
            // reader do not.
            let (flat, expected) = (FlatJSON(text) != nil, Self.foundation(text) != nil)
            let squeezed = text.filter { !$0.isWhitespace }
            if !flat, expected, squeezed.contains(",}") || squeezed.contains(",]") { continue }
            if flat != expected, disagreements.count < 3 {
                disagreements.append(text)
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.map { String($0.suffix(160)) })")
    }

    @Test func deepNestingIsRefusedNotRecursedInto() {
        let deep = "{\"a\":" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        #expect(FlatJSON(deep) == nil)
        let shallow = "{\"a\":" + String(repeating: "[", count: 20) + String(repeating: "]", count: 20) + "}"
        #expect(FlatJSON(shallow)?["a"] == .other)
    }
}
