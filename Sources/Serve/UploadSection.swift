import Logbook
import Settings

extension LogStatusJSON.UploadSection {
    /// An `[upload.NAME]` section as `log status` shows it.
    public init(_ upload: UploadSettings) {
        self.init(name: upload.name, type: upload.type?.rawValue ?? "", kinds: upload.type?.rows ?? [])
    }
}
