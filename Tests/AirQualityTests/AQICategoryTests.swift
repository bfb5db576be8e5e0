import Testing

@testable import AirQuality

@Suite struct AQICategoryTests {
    @Test(arguments: [
        (0, AQICategory.good), (50, .good), (51, .moderate), (100, .moderate), (101, .unhealthyForSensitiveGroups),
        (150, .unhealthyForSensitiveGroups), (151, .unhealthy), (200, .unhealthy), (201, .veryUnhealthy),
        (300, .veryUnhealthy), (301, .hazardous), (500, .hazardous), (734, .hazardous),
    ])
    func boundariesFollowTheEPATable(aqi: Int, expected: AQICategory) {
        #expect(AQICategory(aqi: aqi) == expected)
    }

    @Test func officialColours() {
        #expect(
            AQICategory.allCases.map(\.color) == ["#00E400", "#FFFF00", "#FF7E00", "#FF0000", "#8F3F97", "#7E0023"])
    }

    @Test func everyCategoryHasTextEmojiAndAdvice() {
        for category in AQICategory.allCases {
            #expect(!category.name.isEmpty && !category.emoji.isEmpty && !category.description.isEmpty)
            #expect(!category.advice.isEmpty)
        }
    }

    @Test func dominantPollutantIsTheHighestSubIndex() {
        let reading = AirQualityReading(
            usAQI: 72, concentrations: [:], subIndices: [.pm2_5: 41, .ozone: 72, .nitrogenDioxide: 9], time: "t")
        #expect(reading.dominantPollutant == .ozone)
    }
}
