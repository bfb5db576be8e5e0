import AirlocCLI
import Foundation

// The process's arguments and environment in, its exit status out: everything else is
// the library's (AirlocCommandLine.run, testable without exiting).
exit(
    await AirlocCommandLine.run(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
