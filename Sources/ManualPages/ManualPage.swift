import Arguments
import Configuration
import Web

/// airloc(1) and airloc.conf(5) in roff, generated from the declarations the parser and
/// the configuration reader use (``CommandSpec``, ``ConfigurationKey/all``), so that a
/// command, option or key cannot exist without its page (`airloc __generate man`,
/// docs/packaging.md).
package enum ManualPage {
    /// What `airloc __generate KIND` prints for packaging (docs/packaging.md): `man`,
    /// `conf-man`, `bash`, `zsh` or `fish`; nil for another kind.
    package static func generated(_ kind: String?, commands: [CommandSpec]) -> String? {
        switch kind {
        case "man": return command(commands)
        case "conf-man": return configuration()
        case "bash": return ShellCompletion.bash(commands)
        case "zsh": return ShellCompletion.zsh(commands)
        case "fish": return ShellCompletion.fish(commands)
        default: return nil
        }
    }

    /// `airloc --help`: every command with its summary, the global options, where the
    /// configuration is read, and the exit codes.
    package static func overview(_ commands: [CommandSpec]) -> String {
        var lines = [
            "airloc — where am I, and what is the air like here?", "",
            "Usage: airloc <command> [options]", "", "Commands:",
        ]
        for command in commands {
            lines.append("  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.summary)
        }
        lines += [
            "", "Options:", "  -h, --help     show this help (also: airloc <command> --help)",
            "  --version      print the version", "",
            "Configuration: /etc/airloc/airloc.conf, then ~/.config/airloc/airloc.conf (see docs/configuration.md).",
            "Exit codes follow sysexits(3): 64 usage, 65 no such place or postal code (or bad data), 66 no",
            "such input (no logbook yet), 69 service unavailable, 72 a file it needs is missing (the place",
            "data), 74 cannot read or write a file (the logbook), 75 try again later, 77 location not",
            "authorized, 78 configuration error;",
            "1 when a search finds nothing or the picker is left with Esc, 130 on Ctrl-C, 143 on SIGTERM.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// airloc(1): every command with its usage, description and options; exit status;
    /// environment; files; examples.
    package static func command(_ commands: [CommandSpec]) -> String {
        var lines = Roff.header("airloc", section: 1, version: AirlocVersion.string)
        lines += [
            ".SH NAME", "airloc \\- where am I, and what is the air like here", ".SH SYNOPSIS",
            ".B airloc", ".I command", "[\\fIoptions\\fR]", ".br", ".B airloc \\-\\-help", "|", ".B \\-\\-version",
            ".SH DESCRIPTION",
            Roff.roff(
                "airloc finds this device's position (gpsd, IP geolocation or a place you chose), names the place "
                    + "offline, and shows the air quality there from Open-Meteo (CAMS): the \"Your Location\" card, "
                    + "JSON for scripts, or a durable logbook of position and air quality."),
            ".SH COMMANDS",
        ]
        lines += Roff.commands(commands)
        lines += [".SH EXIT STATUS", Roff.roff("sysexits(3); one table for all commands in docs/cli.md."), ".TP", "0"]
        for (code, meaning) in exitCodes {
            if code != "0" { lines += [".TP", code] }
            lines.append(Roff.roff(meaning))
        }
        lines += [".SH ENVIRONMENT"]
        for (name, meaning) in environment { lines += [".TP", ".B \(Roff.roff(name))", Roff.roff(meaning)] }
        lines += [".SH FILES"]
        for (path, meaning) in files { lines += [".TP", ".I \(Roff.roff(path))", Roff.roff(meaning)] }
        lines += [".SH EXAMPLES"]
        for (command, meaning) in examples { lines += [".TP", ".B \(Roff.roff(command))", Roff.roff(meaning)] }
        lines += [
            ".SH SEE ALSO", "\\fBairloc.conf\\fR(5), \\fBgpsd\\fR(8), \\fBgpspipe\\fR(1)",
            ".SH NOTES", Roff.roff("Air quality: Open-Meteo.com, CAMS (CC BY 4.0). Places: GeoNames (CC BY 4.0)."),
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    static let exitCodes: [(String, String)] = [
        ("0", "the answer was printed"), ("1", "search found nothing; Esc in the picker"),
        ("64", "bad usage: an unknown option, a value out of range"),
        ("65", "input that names nothing (an unknown place or postal code); damaged place data"),
        ("66", "no logbook yet (log status, log export)"),
        ("69", "gpsd or a service unavailable, or an answer that cannot be read"),
        ("72", "the place data file is missing"), ("74", "a state file or the logbook cannot be written"),
        ("75", "no fix yet, a rate limit, a server error or a timeout: try again later"),
        ("77", "not authorized to sense the location (see airloc auth)"),
        ("78", "a configuration file or variable is wrong"), ("130", "Ctrl-C in the picker"),
    ]

    static var environment: [(String, String)] { EnvironmentVariable.all.map { ($0.name, $0.meaning) } }

    static let files: [(String, String)] = [
        ("/etc/airloc/airloc.conf", "the administrator's configuration (see airloc.conf(5))"),
        ("~/.config/airloc/airloc.conf", "the user's configuration"),
        ("~/.local/state/airloc/authorization", "the location permission (airloc auth)"),
        ("~/.local/state/airloc/logbook.sqlite", "the field logbook (airloc log); the service uses /var/lib/airloc"),
        ("~/.cache/airloc", "answers of the web services"),
        ("/usr/share/airloc/gazetteer.bin", "the offline place data (GeoNames)"),
    ]

    static let examples: [(String, String)] = [
        ("airloc now", "the air where this device is"), ("airloc now --json", "the same for a script"),
        ("airloc air Paris --format line", "one line for a status bar"),
        ("airloc reverse 52.52 13.40", "the place at a coordinate, offline"),
        ("airloc auth grant --always", "allow sensing, also for unattended runs"),
        ("airloc log export --format gpx --since 24h", "the last day's track as GPX"),
    ]
}
