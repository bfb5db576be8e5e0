import Foundation
import FuzzTargets

// libFuzzer's entry points over ``FuzzTarget``: one executable for every target, the one
// fed chosen by `AIRLOC_FUZZ_TARGET` (scripts/fuzz.sh sets it). `list` prints the targets.

/// The target of this run (a global `let`: made once, on the first input, thread-safely).
private let chosen = FuzzTarget.named(ProcessInfo.processInfo.environment["AIRLOC_FUZZ_TARGET"] ?? "")

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let name = ProcessInfo.processInfo.environment["AIRLOC_FUZZ_TARGET"] ?? ""
    if name == "list" {
        for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
        exit(0)
    }
    guard let target = FuzzTarget.named(name) else {
        FileHandle.standardError.write(
            Data("airloc-fuzz: AIRLOC_FUZZ_TARGET must name a target (list: make fuzz-list), not '\(name)'\n".utf8))
        exit(64)
    }
    _ = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    chosen?.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
