import Foundation

/// Reads the human-readable reason out of the error bodies the supported services send:
/// Open-Meteo `{"error":true,"reason":"..."}`, ipapi.co `{"reason":..,"message":..}`,
/// ipinfo.io `{"error":{"title":..,"message":..}}`, plain `{"message":...}`.
///
/// Contract: returns nil (never throws) for bodies that are empty, not JSON or carry no
/// text; the text is cut to 300 characters so a hostile body cannot flood the terminal.
public enum ErrorBody {
    /// The `reason` of an Open-Meteo error body (`{"error":true,"reason":...}`), as plain text.
    public static func reason(in body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        var text: String?
        if let reason = object["reason"] as? String, let message = object["message"] as? String {
            text = "\(reason): \(message)"
        } else if let reason = object["reason"] as? String {
            text = reason
        } else if let message = object["message"] as? String {
            text = message
        } else if let nested = object["error"] as? [String: Any] {
            text = (nested["message"] as? String) ?? (nested["title"] as? String)
        }
        guard let found = text?.trimmingCharacters(in: .whitespacesAndNewlines), !found.isEmpty else { return nil }
        let printable = String(found.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) })
        return printable.count > 300 ? String(printable.prefix(300)) + "…" : printable
    }
}
