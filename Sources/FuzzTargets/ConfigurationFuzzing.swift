import Configuration
import Foundation
import Settings

/// The configuration file as `airloc` reads it: inih's reader, then every section and key
/// kind (`[location]`, `[sensor]` and `[sensor.NAME]`, `[mqtt]`, `[upload.NAME]`, `[collect]`,
/// `[serve]`, …). A file that cannot be used is a ``ConfigurationError`` naming the line.
enum ConfigurationFuzzing {
    static let targets = [
        FuzzTarget("config", "an airloc.conf read with every section and key kind") { bytes in
            let file = FuzzInput.file("airloc.conf", bytes)
            let environment = [
                "HOME": FuzzInput.scratch.path,
                "AIRLOC_SYSTEM_CONFIG": FuzzInput.scratch.appendingPathComponent(
                    "no-system.conf"
                ).path,
            ]
            guard let settings = try? ConfigurationFiles.load(environment: environment, explicitPath: file.path)
            else { return }
            if let latitude = settings.manualLatitude, let longitude = settings.manualLongitude {
                precondition(abs(latitude) <= 90 && abs(longitude) <= 180, "a manual location off the Earth")
            }
        }
    ]
}
