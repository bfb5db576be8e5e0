import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// udev/61-airloc-gps.rules, checked the way udev reads it (systemd 252 has no
/// `udevadm verify`): every line parses as KEY OP "VALUE" pairs with known keys and
/// operators, and every receiver rule does what Debian's 60-gpsd.rules does — and, for
/// the generic USB-serial chips, only when the product string says it is a GPS.
@Suite struct UdevRulesTests {
    static let knownKeys: Set<String> = [
        "SUBSYSTEM", "ATTRS{idVendor}", "ATTRS{idProduct}", "ATTRS{product}", "SYMLINK", "TAG",
        "ENV{SYSTEMD_WANTS}", "GOTO", "LABEL",
    ]

    /// (key, operator, value) triples of one rule line; nil when a part does not parse.
    static func parse(_ line: Substring) -> [(key: String, op: String, value: String)]? {
        var pairs: [(String, String, String)] = []
        var rest = line[...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            if rest.isEmpty { break }
            guard let opStart = rest.firstIndex(where: { "=!+:".contains($0) }) else { return nil }
            let key = String(rest[..<opStart])
            var afterOp = rest[opStart...]
            let op = String(afterOp.prefix { "=!+:".contains($0) })
            afterOp = afterOp.dropFirst(op.count)
            guard ["==", "!=", "=", "+=", ":="].contains(op), afterOp.first == "\"" else { return nil }
            let valueAndRest = afterOp.dropFirst()
            guard let close = valueAndRest.firstIndex(of: "\"") else { return nil }
            pairs.append((key, op, String(valueAndRest[..<close])))
            rest = valueAndRest[valueAndRest.index(after: close)...]
        }
        return pairs
    }

    @Test func everyRuleParsesAndTreatsReceiversLikeDebian() throws {
        let text = try String(contentsOf: PackagePaths.file("udev/61-airloc-gps.rules"), encoding: .utf8)
        var labels: Set<String> = []
        var gotos: Set<String> = []
        var receivers: Set<String> = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            let pairs = try #require(Self.parse(line), "does not parse: \(line)")
            for pair in pairs { #expect(Self.knownKeys.contains(pair.key), "unknown key \(pair.key)") }
            let values = Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            if let label = values["LABEL"] { labels.insert(label) }
            if let target = values["GOTO"] { gotos.insert(target) }
            guard let vendor = values["ATTRS{idVendor}"], let product = values["ATTRS{idProduct}"] else { continue }
            receivers.insert("\(vendor):\(product)")
            #expect(values["SYMLINK"] == "gps%n", "\(line)")
            #expect(values["TAG"] == "systemd", "\(line)")
            #expect(values["ENV{SYSTEMD_WANTS}"] == "gpsdctl@%k.service", "\(line)")
            // Generic chips are in many non-GPS gadgets: only with a GPS product string.
            let name = try #require(values["ATTRS{product}"], "generic chip without a product match: \(line)")
            // udev globs are fnmatch(3) patterns.
            let receiverNames = ["USB GPS Receiver", "u-blox 7 - GPS/GNSS Receiver", "GNSS receiver"]
            #expect(receiverNames.contains { fnmatch(name, $0, 0) == 0 }, "\(name) matches no GPS product name")
            for gadget in ["USB2.0-Serial", "USB-Serial Controller", "FT232R USB UART"] {
                #expect(fnmatch(name, gadget, 0) != 0, "\(name) also matches the plain chip '\(gadget)'")
            }
        }
        #expect(gotos.isSubset(of: labels), "GOTO without LABEL")
        #expect(receivers.isSuperset(of: ["1a86:7523", "067b:2303", "0403:6001"]))
    }
}
