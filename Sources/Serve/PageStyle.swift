import AirQuality

/// `GET /page.css`: the device page's layout — one column on a 360 px phone, the card
/// beside the map from 900 px on and the day's figure across both below them — and the category colours, taken from ``AQICategory``
/// so the page and the card cannot disagree.
enum PageStyle {
    static let text: String = {
        let categories = AQICategory.allCases.map { category in
            ".cat-\(category.rawValue) .aqi { background: \(category.color); color: \(textColour(category)); }"
        }.joined(separator: "\n")
        return """
            * { box-sizing: border-box; }
            body { margin: 0; font: 16px/1.4 system-ui, sans-serif; color: #111; background: #f4f4f4; }
            main { display: grid; gap: 12px; padding: 12px; max-width: 1280px; margin: 0 auto; }
            h1 { font-size: 1.2rem; margin: 0 0 .3rem; }
            h2 { font-size: 1rem; margin: 0 0 .5rem; }
            .card, .panel { background: #fff; border-radius: 8px; padding: 12px; box-shadow: 0 1px 3px #0002; min-width: 0; }
            .aqi { font-size: 1.6rem; font-weight: 600; border-radius: 6px; padding: .3rem .6rem; margin: .4rem 0; }
            .aqi .basis { font-size: .9rem; font-weight: 400; }
            .cat-unknown .aqi { background: #616161; color: #fff; }
            \(categories)
            dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .8rem; margin: .5rem 0; }
            dt { color: #555; }
            dd { margin: 0; overflow-wrap: anywhere; }
            .where, .note { color: #555; font-size: .85rem; margin: .2rem 0; overflow-wrap: anywhere; }
            #map { height: 320px; border-radius: 6px; }
            #map.plain { background: #e8eef2; }
            picture { display: block; }
            #chart { width: 100%; height: auto; display: block; }
            footer { font-size: .8rem; color: #555; }
            .place-name { background: transparent; border: 0; box-shadow: none; font-size: .75rem; }
            .devices { list-style: none; padding: 0; margin: .5rem 0; max-height: 70vh; overflow-y: auto; }
            .devices li { padding: .3rem .2rem; border-bottom: 1px solid #eee; overflow-wrap: anywhere; }
            .devices li.chosen { background: #e3ecf7; }
            .devices .aqi { display: inline-block; font-size: .9rem; padding: .1rem .4rem; margin: 0; }
            .age { color: #555; font-size: .85rem; }
            .category { font-size: .85rem; }
            .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
            .stale { color: #B00020; font-weight: 600; font-size: .85rem; }
            @media (min-width: 900px) {
              main { grid-template-columns: 380px 1fr; }
              #map-panel { grid-row: span 2; }
              #day { grid-column: 1 / -1; }
              #map { height: 520px; }
              footer { grid-column: 1 / -1; }
            }

            """
    }()

    /// The text on each category's colour, at WCAG 2.1 AA's 4.5:1 at least: black on the
    /// light ones and on Unhealthy's red (5.3:1; white there was 4.0:1), white on the dark.
    static func textColour(_ category: AQICategory) -> String {
        switch category {
        case .good, .moderate, .unhealthyForSensitiveGroups, .unhealthy: return "#000"
        case .veryUnhealthy, .hazardous: return "#fff"
        }
    }
}
