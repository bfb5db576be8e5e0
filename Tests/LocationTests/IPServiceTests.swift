import Foundation
import Geo
import Testing
import Web

@testable import Location

/// The four IP services' answer formats (reference/postal-and-ip.md), good and bad.
@Suite struct IPServiceTests {
    func parse(_ service: IPService, _ json: String) throws(IPLocationError) -> IPService.Answer {
        try service.parse(Data(json.utf8))
    }

    /// Control and escape bytes in every text field of every service's answer (and of
    /// its refusal) are gone where the answer enters.
    @Test func serviceTextIsMadePlainWhereItEnters() throws {
        let hostile = #"\u001b]0;owned\u0007\u001b[31mX\u009b2J\u007f"#
        func plain(_ text: String?) -> Bool {
            !(text ?? "").unicodeScalars.contains {
                $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value)
            }
        }
        let answers = [
            try parse(
                .ipwhois,
                #"{"success":true,"latitude":52.52,"longitude":13.405,"city":"\#(hostile)","region":"\#(hostile)","country_code":"\#(hostile)","timezone":{"id":"\#(hostile)"}}"#
            ),
            try parse(
                .ipinfo,
                #"{"city":"\#(hostile)","region":"\#(hostile)","country":"\#(hostile)","timezone":"\#(hostile)","loc":"41.7,-111.8"}"#
            ),
            try parse(
                .ipapi,
                #"{"latitude":48.85,"longitude":2.35,"city":"\#(hostile)","region":"\#(hostile)","country_code":"\#(hostile)","timezone":"\#(hostile)"}"#
            ),
            try parse(
                .ipAPICom,
                #"{"status":"success","lat":35.69,"lon":139.69,"city":"\#(hostile)","regionName":"\#(hostile)","countryCode":"\#(hostile)","timezone":"\#(hostile)"}"#
            ),
        ]
        for answer in answers {
            for text in [answer.city, answer.region, answer.countryCode, answer.timezone] {
                #expect(plain(text) && (text ?? "").contains("X"), "\(String(describing: text).debugDescription)")
            }
        }
        do {
            _ = try parse(.ipwhois, #"{"success":false,"message":"\#(hostile)"}"#)
            Issue.record("a refusal was taken for an answer")
        } catch {
            #expect(plain(error.description), "\(error.description.debugDescription)")
        }
    }

    @Test func eachServicesShapeGivesThePosition() throws {
        let whois = try parse(
            .ipwhois,
            #"{"success":true,"latitude":52.52,"longitude":13.405,"city":"Berlin","country_code":"DE","timezone":{"id":"Europe/Berlin"}}"#
        )
        #expect(whois.coordinate.latitude == 52.52 && whois.timezone == "Europe/Berlin" && whois.city == "Berlin")
        let info = try parse(.ipinfo, #"{"city":"Logan","region":"Utah","country":"US","loc":"41.7355,-111.8344"}"#)
        #expect(info.coordinate.longitude == -111.8344 && info.countryCode == "US")
        let ipapi = try parse(.ipapi, #"{"latitude":48.8534,"longitude":2.3488,"country_code":"FR","city":"Paris"}"#)
        #expect(ipapi.coordinate.latitude == 48.8534)
        let ipAPICom = try parse(
            .ipAPICom, #"{"status":"success","lat":35.69,"lon":139.69,"countryCode":"JP","regionName":"Tokyo"}"#)
        #expect(ipAPICom.coordinate.longitude == 139.69 && ipAPICom.region == "Tokyo")
    }

    @Test(arguments: [
        (IPService.ipwhois, #"{"success":false,"message":"Reserved range"}"#, "Reserved range"),
        (IPService.ipinfo, #"{"ip":"10.0.0.1","bogon":true}"#, "private"),
        (
            IPService.ipapi, #"{"error":true,"reason":"RateLimited","message":"Visit https://ipapi.co/ratelimited/"}"#,
            "RateLimited"
        ),
        (IPService.ipAPICom, #"{"status":"fail","message":"private range"}"#, "private range"),
    ])
    func aServicesOwnFailureFlagIsARefusalWithItsMessage(service: IPService, body: String, expected: String) {
        #expect {
            _ = try parse(service, body)
        } throws: { error in
            guard case .refused(let name, let message) = error as? IPLocationError else { return false }
            return name == service.rawValue && message.contains(expected)
        }
    }

    @Test(arguments: [
        #"{"latitude":"Sign up to access","longitude":"Sign up to access","city":"Sign up to access"}"#,
        #"{"latitude":null,"longitude":13.4}"#,
        #"{"latitude":95.0,"longitude":13.4}"#,
        #"{"latitude":true,"longitude":13.4}"#,
        "<html>rate limited</html>",
        "",
    ])
    func textWhereNumbersBelongIsUnusableNeverZero(body: String) {
        #expect {
            _ = try parse(.ipapi, body)
        } throws: { error in
            guard case .unusable(let service, let reason) = error as? IPLocationError else { return false }
            return service == "ipapi.co" && !reason.isEmpty
        }
    }

    @Test func signUpTextIsNamedInTheError() {
        do {
            _ = try parse(.ipapi, #"{"latitude":"Sign up to access","longitude":"Sign up to access"}"#)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("latitude is not a number ('Sign up to access')"))
        }
    }
}
