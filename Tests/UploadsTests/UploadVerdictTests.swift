import Foundation
import Testing
import Web

@testable import Uploads

/// What an upload service's answer means, whatever the service sends back.
@Suite struct UploadVerdictTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test func aRetryAfterIsSecondsOrAnHTTPDate() {
        #expect(UploadVerdict.retryAfter("120", now: Self.now) == .seconds(120))
        let date = UploadVerdict.retryAfter(
            "Wed, 21 Oct 2026 07:28:00 GMT", now: Date(timeIntervalSince1970: 1_792_567_600))
        #expect(date == .seconds(80))
    }

    /// A header Foundation's DateFormatter stopped the process on (fuzzing found it): no
    /// pause is read from it, and the answer is still judged.
    @Test func aRetryAfterThatIsNeitherIsIgnoredWithoutACrash() {
        let text = "Wed, 21\u{7B0}\u{FFFD}\u{FFFD}6 07:28:800 GMT"
        #expect(UploadVerdict.retryAfter(text, now: Self.now) == nil)
        let verdict = UploadVerdict.judge(
            HTTPAnswer(status: 503, body: Data("busy".utf8), retryAfter: text), type: "traccar", now: Self.now)
        guard case .retry(nil, _) = verdict else {
            Issue.record("a 503 is retried on the back-off's own pause: \(verdict)")
            return
        }
    }
}
