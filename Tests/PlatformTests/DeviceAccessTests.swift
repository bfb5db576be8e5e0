import Foundation
import Platform
import TestSupport
import Testing

/// What doctor and `sense` advise for a device this user cannot open: the one remedy that
/// helps, never "join group root", never a group for a mode that gives the group nothing.
@Suite struct DeviceAccessTests {
    @Test func aRegularFileIsNoDeviceNode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("ttyUSB0")
        try "".write(to: file, atomically: true, encoding: .utf8)
        let access = DeviceAccess(path: file.path)
        #expect(!access.isCharacterDevice)
        #expect(
            access.remedy.contains("is not a device node") && !access.remedy.contains("usermod"), "\(access.remedy)")
    }

    @Test func aDeviceOfGroupRootIsGivenDialoutNotJoined() {
        // /dev/null: a character device, mode 0666, group root.
        let access = DeviceAccess(path: "/dev/null")
        #expect(access.isCharacterDevice && access.group == "root" && access.mode == 0o666)
        #expect(
            access.remedy.contains("give it group dialout") && !access.remedy.contains("usermod"), "\(access.remedy)")
    }

    @Test func aMissingDeviceHasNoGroupToJoin() {
        let access = DeviceAccess(path: "/dev/airloc-no-such-device")
        #expect(access.mode == nil && !access.isOpenable)
        #expect(access.remedy == "check that /dev/airloc-no-such-device exists")
    }

    @Test func aModeThatGivesTheGroupNothingIsNotFixedByJoiningIt() {
        let locked = DeviceAccess.remedy(path: "/dev/ttyUSB0", mode: 0o000, isCharacterDevice: true, group: "dialout")
        #expect(locked.contains("its mode (0000) lets no group read and write it") && !locked.contains("usermod"))
        let usual = DeviceAccess.remedy(path: "/dev/ttyUSB0", mode: 0o660, isCharacterDevice: true, group: "dialout")
        // The user by name, never "$USER": pasted by an administrator for a service's
        // account, that would name the administrator.
        #expect(usual.hasPrefix("`sudo usermod -aG dialout \(ProcessUser.name)`, then "), "\(usual)")
        #expect(!usual.contains("$USER"))
    }
}
