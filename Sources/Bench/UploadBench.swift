import Airloc
import Foundation
import Logbook
import Platform
import Settings
import Uploads
import Web

/// `airloc-bench upload-drain DIR BASE_URL ROWS`: the uploads' figures for
/// docs/performance.md. A logbook of ROWS track points and ROWS measured readings (a week
/// offline) drained by each upload type in turn, through airloc's own Uploader and
/// libcurl, into scripts/upload-double.py at BASE_URL: rows per second, CPU per row.
enum UploadBench {
    static func run(directory: String, base: String, rows: Int) async throws {
        let file = URL(fileURLWithPath: directory).appendingPathComponent("upload-bench.sqlite")
        try? FileManager.default.removeItem(at: file)
        try LogbookBench.writeBacklog(path: file.path, rows: rows)
        let secret = URL(fileURLWithPath: directory).appendingPathComponent("upload-bench-secret")
        try "s3cret\n".write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o600)
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": directory]))
        let uploads: [(String, String, (inout UploadSettings) -> Void)] = [
            ("traccar", "/traccar/", { $0.id = "bench" }),
            ("owntracks-http", "/owntracks/pub", { ($0.user, $0.device) = ("field", "pi7") }),
            ("sensor-community", "/sensor-community", { $0.maxAge = 0 }),
            (
                "opensensemap", "/opensensemap",
                { ($0.box, $0.sensors) = ("5f0000000000000000000001", ["pm2_5": "s-pm25", "pm10": "s-pm10"]) }
            ),
        ]
        for (type, path, configure) in uploads {
            var upload = UploadSettings(name: "bench-\(type)")
            upload.type = UploadSettings.Kind(rawValue: type)
            upload.url = base + path
            if type == "owntracks-http" || type == "opensensemap" { upload.credentialsFile = secret.path }
            configure(&upload)
            settings.uploads = [upload]
            let plan = try UploadPlan(upload, settings: settings, deviceID: "bench")
            var uploader = Uploader(plan: plan, logbook: try Logbook(url: file), sender: NetworkTransport())
            let cpu = FleetBench.cpuSeconds()
            let start = Date()
            if let stop = await uploader.drain() { throw FleetBench.Failure(description: "\(type): \(stop.reason)") }
            let elapsed = Date().timeIntervalSince(start)
            let used = FleetBench.cpuSeconds() - cpu
            let status = try Logbook(url: file).uploadStatus(plan.name, kinds: plan.kinds)
            print(
                String(
                    format: "upload drain %@: %d rows in %.1f s (%.0f rows/s), %.0f µs CPU per row (airloc's side), "
                        + "backlog left %d",
                    type, status.sent, elapsed, Double(status.sent) / max(elapsed, 0.001),
                    used * 1e6 / Double(max(status.sent, 1)), status.backlog))
        }
    }
}
