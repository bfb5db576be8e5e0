import Foundation
import TestSupport
import Testing

@testable import Platform

/// The logger's hold on its sensor: one holder at a time, named by the device's real node,
/// gone with its holder. (Another process seeing the hold is SensorLockEndToEndTests.)
struct DeviceLockTests {
    @Test func oneHolderAtATimeAndTheLockGoesWithIt() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let device = home.file("ttyUSB0").path
        _ = FileManager.default.createFile(atPath: device, contents: nil)
        var lock = try DeviceLock.acquire(device, in: home.url.path)
        #expect(lock != nil)
        let file = DeviceLock.path(for: device, in: home.url.path)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text == String(format: "%10d\n", getpid()), "UUCP style: the PID in ten columns")
        // Held by this process: not "another" holder, but a second hold is refused.
        #expect(DeviceLock.holder(of: device, in: home.url.path) == nil)
        #expect(throws: DeviceLock.Held.self) { try DeviceLock.acquire(device, in: home.url.path) }
        // A symlink to the node (udev's /dev/airloc-pm) is the same lock.
        let link = home.file("airloc-pm").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: device)
        #expect(DeviceLock.path(for: link, in: home.url.path) == file)
        lock = nil
        #expect(!FileManager.default.fileExists(atPath: file), "released: the file is removed")
        #expect(try DeviceLock.acquire(device, in: home.url.path) != nil, "free again")
    }

    /// A sensor unplugged and plugged back comes up on another node behind the same udev
    /// link: at the next reading the lock moves to the new node, and the old node's is let
    /// go (the next device to get that number is not refused by a stale hold).
    @Test func theLockFollowsTheLinkToItsNewNode() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let (old, new) = (home.file("ttyUSB0").path, home.file("ttyUSB1").path)
        for node in [old, new] { _ = FileManager.default.createFile(atPath: node, contents: nil) }
        let link = home.file("airloc-pm").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: old)
        let lock = try #require(try DeviceLock.acquire(link, in: home.url.path))
        let (oldFile, newFile) = (
            DeviceLock.path(for: old, in: home.url.path), DeviceLock.path(for: new, in: home.url.path)
        )
        #expect(FileManager.default.fileExists(atPath: oldFile))
        DeviceLock.follow(link)
        #expect(FileManager.default.fileExists(atPath: oldFile), "the same node: nothing moves")
        // The replug: the link now points at ttyUSB1.
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: new)
        DeviceLock.follow(link)
        #expect(!FileManager.default.fileExists(atPath: oldFile), "the old node's hold is let go")
        #expect(try String(contentsOfFile: newFile, encoding: .utf8) == String(format: "%10d\n", getpid()))
        #expect(try DeviceLock.acquire(old, in: home.url.path) != nil, "another device on the old number is free")
        #expect(throws: DeviceLock.Held.self, "the new node is held") { try DeviceLock.acquire(new, in: home.url.path) }
        withExtendedLifetime(lock) {}
    }

    /// A lock file left by a holder that died (SIGKILL, power) holds nothing.
    @Test func aLockFileLeftBehindIsTakenOver() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let device = home.file("ttyAMA0").path
        let file = DeviceLock.path(for: device, in: home.url.path)
        try "     99999\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(DeviceLock.holder(of: device, in: home.url.path) == nil)
        #expect(try DeviceLock.acquire(device, in: home.url.path) != nil)
    }
}
