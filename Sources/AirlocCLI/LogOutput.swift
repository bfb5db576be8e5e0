import Arguments
import Foundation
import Platform

/// Where `log export` and `log plot` write: `--output FILE` (beside itself, renamed into
/// place when complete, 0600) or stdout; a reader that went away (`| head`) is no failure.
struct LogOutput {
    let file: StreamedFile?

    init(_ arguments: ParsedArguments) throws(CLIError) {
        guard let output = arguments.value(.output) else {
            file = nil
            return
        }
        do { file = try StreamedFile(URL(fileURLWithPath: output)) } catch {
            throw CLIError(code: .ioError, message: error.description)
        }
    }

    /// Writes `chunk` to the file or stdout.
    func write(_ chunk: Data) throws(FileError) {
        try StandardStream.writeAll(
            chunk, to: file?.descriptor ?? StandardStream.output, path: file?.partial.path ?? "stdout")
    }

    /// Runs `body`, then puts the file in place; on a failure the partial file goes, and
    /// `failure` says what the error means (nil: a plain I/O error of `what`).
    func produce(_ what: String, failure: (any Error) -> CLIError? = { _ in nil }, _ body: () throws -> Void)
        throws(CLIError) -> ExitCode
    {
        do { try body() } catch {
            file?.abandon()
            if let error = error as? FileError, error.isBrokenPipe { return .ok }
            throw failure(error) ?? CLIError(code: .ioError, message: "\(what) failed: \(error)")
        }
        do { try file?.commit() } catch { throw CLIError(code: .ioError, message: error.description) }
        return .ok
    }
}
