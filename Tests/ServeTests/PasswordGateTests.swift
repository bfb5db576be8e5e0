import Foundation
import Testing

@testable import Serve

/// The password limiter cannot be filled: one wrong guess from each of 10,000 addresses
/// used to leave every new address uncounted, and an IPv6 host holds any number of
/// addresses. Now a /64 counts as one client, and past the table's size or the global
/// ceiling every client is refused for a minute, said once.
@Suite struct PasswordGateTests {
    let start = Date(timeIntervalSince1970: 1_796_000_000)

    @Test func oneAddressIsRefusedAfterTenWrongPasswordsForTheRestOfTheMinute() {
        let gate = PasswordGate()
        for _ in 0..<10 { gate.wrong(from: "192.0.2.7", at: start) }
        #expect(gate.refusal(of: "192.0.2.7", at: start.addingTimeInterval(1)) == 59)
        #expect(gate.refusal(of: "192.0.2.8", at: start.addingTimeInterval(1)) == nil, "others are not touched")
        #expect(gate.refusal(of: "192.0.2.7", at: start.addingTimeInterval(60)) == nil)
    }

    @Test func anIPv6HostIsItsSlash64AndAMappedIPv4AddressIsTheIPv4One() {
        #expect(PasswordGate.client("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(PasswordGate.client("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(PasswordGate.client("::ffff:192.0.2.7") == "192.0.2.7")
        #expect(PasswordGate.client("192.0.2.7") == "192.0.2.7")
        let gate = PasswordGate()
        for host in 1...10 { gate.wrong(from: "2001:db8:1:2::\(host)", at: start) }
        #expect(gate.refusal(of: "2001:db8:1:2::beef", at: start) != nil, "a new address of the same /64")
        #expect(gate.refusal(of: "2001:db8:1:3::1", at: start) == nil, "another /64")
    }

    @Test func aFullTableOrTheCeilingRefusesEveryClientForAMinuteSaidOnce() {
        let said = Said()
        let gate = PasswordGate { notice in said.add(notice.message) }
        // Fewer addresses than the table holds, more guesses than the ceiling: closed.
        for index in 0...PasswordGate.ceiling { gate.wrong(from: "10.0.\(index / 250).\(index % 250)", at: start) }
        #expect(gate.refusal(of: "198.51.100.1", at: start.addingTimeInterval(1)) == 59, "a client never seen")
        #expect(gate.refusal(of: "198.51.100.1", at: start.addingTimeInterval(60)) == nil, "open again")
        #expect(said.lines.filter { $0.contains("refusing every password") }.count == 1)

        // The finding: one wrong guess from each of 10,000 addresses, then a new address
        // guessing away, uncounted. Now the ceiling closed the gate long before.
        let filled = PasswordGate()
        for index in 0..<PasswordGate.remembered {
            filled.wrong(from: "10.\(index / 65536).\(index / 256 % 256).\(index % 256)", at: start)
        }
        for _ in 0..<300 { filled.wrong(from: "203.0.113.9", at: start) }
        #expect(filled.refusal(of: "203.0.113.9", at: start.addingTimeInterval(20)) == 40)
    }

    final class Said: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func add(_ line: String) { lock.withLock { stored.append(line) } }
        var lines: [String] { lock.withLock { stored } }
    }
}
