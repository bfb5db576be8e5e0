import Foundation

/// The services' answers in the shapes recorded from them (../shared/reference/
/// open-meteo.md), made in-process for ``ScriptedServices``: the same Berlin air quality
/// the HTTP double serves, and an ERA5 archive whose recent days are exactly 1.8 °C above
/// their 1991-2020 normal.
public enum RecordedAnswers {
    /// The answer for a GET of `path` with `query`, as the service would give it at `date`.
    public static func answer(path: String, query: [String: String], date: Date) -> (status: Int, body: Data) {
        switch path {
        case "/v1/air-quality" where query["hourly"] != nil: return airQualityHistory(query: query)
        case "/v1/air-quality": return (200, Data(airQuality(at: date).utf8))
        case "/v1/archive": return archive(query: query, today: date)
        default: return (404, Data("{}".utf8))
        }
    }

    /// Berlin's current air quality (US AQI 41, PM2.5 8.8 µg/m³), stamped with the
    /// current hour at the place (UTC+1), as the live service stamps it.
    public static func airQuality(at date: Date) -> String {
        let hour = Int((date.timeIntervalSince1970 + 3600) / 3600) * 3600
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        let time = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(hour)))
        return #"""
            {"latitude":52.549995,"longitude":13.400002,"generationtime_ms":0.17,"utc_offset_seconds":3600,\#
            "timezone":"Europe/Berlin","timezone_abbreviation":"CET","elevation":38.0,\#
            "current_units":{"time":"iso8601","interval":"seconds","us_aqi":"USAQI","pm10":"μg/m³"},\#
            "current":{"time":"\#(time)","interval":3600,"us_aqi":41,"pm10":9.7,"pm2_5":8.8,\#
            "carbon_monoxide":220.0,"nitrogen_dioxide":17.7,"sulphur_dioxide":1.3,"ozone":54.0,\#
            "us_aqi_pm2_5":41,"us_aqi_pm10":9,"us_aqi_nitrogen_dioxide":9,"us_aqi_sulphur_dioxide":1,\#
            "us_aqi_ozone":25,"us_aqi_carbon_monoxide":2,"european_aqi":22,"european_aqi_pm2_5":22,\#
            "european_aqi_pm10":13,"european_aqi_nitrogen_dioxide":15,"european_aqi_ozone":18,\#
            "european_aqi_sulphur_dioxide":1,"alder_pollen":null,"birch_pollen":null,"grass_pollen":null,\#
            "mugwort_pollen":null,"olive_pollen":null,"ragweed_pollen":null}}
            """#
    }

    /// The hourly series for `start_hour`...`end_hour` (GMT), as the service answers a
    /// back-fill: US AQI 100 + the hour of day, PM2.5 a tenth of that; a 400 before 2013,
    /// as the service refuses dates before its coverage.
    public static func airQualityHistory(query: [String: String]) -> (status: Int, body: Data) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        guard let start = query["start_hour"].flatMap(formatter.date(from:)),
            let end = query["end_hour"].flatMap(formatter.date(from:)), start <= end
        else { return (400, Data(#"{"error":true,"reason":"Parameter 'start_hour' is invalid"}"#.utf8)) }
        if start < formatter.date(from: "2013-01-01T00:00")! {
            return (
                400,
                Data(
                    #"{"error":true,"reason":"Parameter 'start_date' is out of allowed range from 2013-01-01 to 2026-12-07"}"#
                        .utf8)
            )
        }
        var times: [String] = []
        var aqi: [String] = []
        var pm25: [String] = []
        var hour = start
        while hour <= end {
            times.append("\"" + formatter.string(from: hour) + "\"")
            let index = 100 + Int(hour.timeIntervalSince1970 / 3600) % 24
            aqi.append(String(index))
            pm25.append(String(Double(index) / 10))
            hour = hour.addingTimeInterval(3600)
        }
        let body = """
            {"latitude":52.549995,"longitude":13.400002,"utc_offset_seconds":0,"timezone":"GMT",\
            "hourly_units":{"time":"iso8601","us_aqi":"USAQI","pm2_5":"μg/m³"},\
            "hourly":{"time":[\(times.joined(separator: ","))],"us_aqi":[\(aqi.joined(separator: ","))],\
            "pm2_5":[\(pm25.joined(separator: ","))]}}
            """
        return (200, Data(body.utf8))
    }

    /// ERA5 daily means for `start_date`...`end_date`: 10 °C before 2025, 11.8 °C from
    /// 2025 on, null for the last five days before `today` (the archive lags).
    public static func archive(query: [String: String], today: Date) -> (status: Int, body: Data) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        guard let startText = query["start_date"], let endText = query["end_date"],
            let start = formatter.date(from: startText), let end = formatter.date(from: endText), start <= end
        else {
            return (400, Data(#"{"error":true,"reason":"Parameter 'start_date' is invalid or missing"}"#.utf8))
        }
        let lag = today.addingTimeInterval(-5 * 86_400)
        let recent = formatter.date(from: "2025-01-01")!
        var times: [String] = []
        var values: [String] = []
        var day = start
        while day <= end {
            times.append(quoted(formatter.string(from: day)))
            values.append(day > lag ? "null" : day >= recent ? "11.8" : "10.0")
            day = day.addingTimeInterval(86_400)
        }
        let body = """
            {"latitude":52.5,"longitude":13.5,"generationtime_ms":12.0,"utc_offset_seconds":3600,\
            "timezone":"Europe/Berlin","timezone_abbreviation":"CET","elevation":38.0,\
            "daily_units":{"time":"iso8601","temperature_2m_mean":"°C"},\
            "daily":{"time":[\(times.joined(separator: ","))],"temperature_2m_mean":[\(values.joined(separator: ","))]}}
            """
        return (200, Data(body.utf8))
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text])
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}
