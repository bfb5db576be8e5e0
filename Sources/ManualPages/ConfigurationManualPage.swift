import Arguments
import Configuration
import Foundation
import Web

extension ManualPage {
    /// airloc.conf(5): every key of every section, its values and its default.
    package static func configuration() -> String {
        var lines = Roff.header("airloc.conf", section: 5, version: AirlocVersion.string)
        lines += [
            ".SH NAME", "airloc.conf \\- airloc configuration", ".SH SYNOPSIS",
            ".I /etc/airloc/airloc.conf", ".br", ".I $XDG_CONFIG_HOME/airloc/airloc.conf", ".SH DESCRIPTION",
            Roff.roff(
                "An INI file: [section] headers, key = value lines, comments starting with ; or #. The "
                    + "system file is read first, then the user's (or --config FILE, AIRLOC_CONFIG), then "
                    + "environment variables, then command-line flags; later layers win. An unknown key, a bad "
                    + "value, latitude without longitude, or a place that names several places stops every "
                    + "command with exit status 78 and the file and line. [authorization] is honoured only in "
                    + "the system file."),
        ]
        for section in ConfigurationKey.sections {
            lines.append(".SH \"[\(Roff.roff(section).uppercased())]\"")
            for key in ConfigurationKey.all where key.section == section {
                let fallback = ConfigurationKey.defaults["\(section).\(key.name)"] ?? "none"
                lines += [
                    ".TP", "\\fB\(Roff.roff(key.name))\\fR = \\fI\(Roff.roff(key.expected))\\fR",
                    Roff.roff("Default: \(fallback)."),
                ]
            }
        }
        // Any number of [upload.NAME] sections (docs/uploads.md), each with these keys.
        lines += [
            ".SH \"[UPLOAD.NAME]\"",
            Roff.roff(
                "A server the logbook is forwarded to, store and forward; any number of sections, NAME of "
                    + "letters, digits, - and _. position defaults to exact for owntracks-mqtt, owntracks-http "
                    + "and traccar, coarse for sensor-community and opensensemap."),
        ]
        for key in UploadKey.all {
            lines += [".TP", "\\fB\(Roff.roff(key.name))\\fR = \\fI\(Roff.roff(key.expected))\\fR"]
        }
        // Any number of [sensor.NAME] sections (docs/sensors.md), each with these keys.
        lines += [
            ".SH \"[SENSOR.NAME]\"",
            Roff.roff(
                "A CO2 or climate sensor beside [sensor]; any number of sections, NAME of letters, digits, - and _ "
                    + "(not sensor). A serial model (mh-z19, senseair-s8, scd30) takes device; a kernel one iio "
                    + "(bme280, bmp280, bme680, scd30, scd4x, dht11) or hwmon (sht3x, sht4x, htu21), a sysfs "
                    + "directory or auto. warm-up-seconds defaults to 180 for the mh-z19, else 0; sample-seconds "
                    + "10, interval 60, timeout 10."),
        ]
        for key in ClimateSensorKey.all {
            lines += [".TP", "\\fB\(Roff.roff(key.name))\\fR = \\fI\(Roff.roff(key.expected))\\fR"]
        }
        lines += [".SH SEE ALSO", "\\fBairloc\\fR(1)"]
        return lines.joined(separator: "\n") + "\n"
    }

}
