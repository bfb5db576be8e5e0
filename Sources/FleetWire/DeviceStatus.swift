/// What a device's `<prefix>/status` topic says: `online` (retained when it connects) or
/// `offline` (its will, and its farewell when it stops). Home Assistant's availability
/// reads the same two words.
///
/// The collector keeps any short word a device says there (a device of another version
/// may say more); these are the two airloc says and acts on.
public enum DeviceStatus: String, Sendable, Codable, CaseIterable {
    case online
    case offline

    /// The word on the wire.
    public var word: String { rawValue }
}
