import AirQuality
import Foundation
import Testing

@testable import Serve

/// Every category's text on its colour, and "no air reading", read at WCAG 2.1 AA's 4.5:1
/// at least: axe-core found "measured here" white on the Unhealthy red at 3.99:1 and "no
/// air reading" white on grey at 2.67:1.
@Suite struct PageContrastTests {
    /// WCAG 2.1's contrast ratio of two `#RRGGBB` (or `#RGB`) colours.
    static func contrast(_ a: String, _ b: String) -> Double {
        func luminance(_ hex: String) -> Double {
            var digits = hex.dropFirst().map { String($0) }
            if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
            let channels = stride(from: 0, to: 6, by: 2).map { index -> Double in
                let value = Double(Int(digits[index] + digits[index + 1], radix: 16) ?? 0) / 255
                return value <= 0.039_28 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
        }
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test func everyCategorysTextReadsAtAALevel() {
        for category in AQICategory.allCases {
            let ratio = Self.contrast(PageStyle.textColour(category), category.color)
            #expect(ratio >= 4.5, "\(category.name): \(ratio)")
        }
        let unknown = PageStyle.text.split(separator: "\n").first { $0.contains(".cat-unknown .aqi") } ?? ""
        let colours = unknown.matches(of: /#[0-9A-Fa-f]{3,6}\b/).map { String($0.output) }
        #expect(colours.count == 2 && Self.contrast(colours[0], colours[1]) >= 4.5, "\(unknown)")
        #expect(Self.contrast("#FFFFFF", "#FF0000") < 4.5, "the measure itself: white on red was too little")
    }
}
