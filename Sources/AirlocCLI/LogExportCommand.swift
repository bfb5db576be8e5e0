import Foundation
import Geo
import Logbook
import Platform

/// `airloc log export`: the logbook streamed as NDJSON, CSV, GPX or GeoJSON.
///
/// Contract: constant memory for any size; `--output FILE` is written beside itself and
/// renamed into place when complete (mode 0600: it holds exact positions), so a reader
/// never sees half an export and an interrupted export leaves no half file.
enum LogExportCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let command = LogCommand.spec.name
        guard let formatText = arguments.value(.format) else {
            throw .usage("export needs --format ndjson, csv, gpx or geojson", command: command)
        }
        guard let format = LogExport.Format(rawValue: formatText) else {
            throw .usage(
                "unknown --format '\(formatText.prefix(40))': expected ndjson, csv, gpx or geojson", command: command)
        }
        let kindText = arguments.value(.kind) ?? "all"
        guard let kind = LogExport.Kind(rawValue: kindText) else {
            throw .usage("unknown --kind '\(kindText.prefix(40))': expected track, air or all", command: command)
        }
        let now = Date()
        var window = LogWindow()
        if let since = arguments.value(.since) { window.since = try LogTime.parse(since, option: "--since", now: now) }
        if let until = arguments.value(.until) { window.until = try LogTime.parse(until, option: "--until", now: now) }
        if let since = window.since, let until = window.until, since >= until {
            throw .usage(
                "--since (\(UTCTime.iso8601Seconds(since))) is not before --until (\(UTCTime.iso8601Seconds(until))): "
                    + "no row can be in that window", command: command)
        }
        let logbook = try LogCommand.open(context, readOnly: true)

        let output = arguments.value(.output).map { URL(fileURLWithPath: $0) }
        let temporary = output.map {
            $0.deletingLastPathComponent().appendingPathComponent(".\($0.lastPathComponent).partial")
        }
        var descriptor = StandardStream.output
        if let temporary {
            descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            if descriptor < 0 {
                throw CLIError(
                    code: .ioError, message: "cannot write \(temporary.path): \(String(cString: strerror(errno)))")
            }
        }
        let target = descriptor
        let shownPath = temporary?.path ?? "stdout"
        do {
            _ = try LogExport.write(logbook, format: format, kind: kind, window: window) { chunk in
                try StandardStream.writeAll(chunk, to: target, path: shownPath)
            }
            if let temporary, let output {
                fsync(target)
                close(target)
                guard rename(temporary.path, output.path) == 0 else {
                    throw CLIError(
                        code: .ioError, message: "cannot write \(output.path): \(String(cString: strerror(errno)))")
                }
            }
        } catch {
            if let temporary {
                close(target)
                unlink(temporary.path)
            }
            if let error = error as? CLIError { throw error }
            // The reader went away (`| head`): not a failure of the export.
            if let error = error as? FileError, error.code == EPIPE { return .ok }
            throw CLIError(code: .ioError, message: "export failed: \(error)")
        }
        return .ok
    }
}
