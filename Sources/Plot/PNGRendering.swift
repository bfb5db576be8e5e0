import CRsvg
import Foundation

/// The figure as a PNG, for e-paper and small TFT drivers that take bitmaps: the SVG
/// rendered by librsvg with cairo (Debian's), the one file that touches them.
///
/// Contract: the libraries are loaded on the first call only (no other command loads
/// them); a missing library, an SVG that does not parse and a PNG that cannot be written
/// are ``PNGError``s with the reason. The SVG is held in memory for this (a 100,000-point
/// day is about 200 kB of it).
public enum PNGRendering {
    /// Why the PNG was not made.
    public struct PNGError: Error, Sendable, CustomStringConvertible {
        /// What librsvg or cairo said.
        public var description: String
        /// The libraries are not installed.
        public var missingLibrary: Bool
    }

    /// Renders `svg` at `width` × `height` into `path`.
    public static func render(svg: String, width: Int, height: Int, to path: String) throws(PNGError) {
        var error = [CChar](repeating: 0, count: 1024)
        let status = svg.utf8CString.withUnsafeBufferPointer { text in
            airloc_svg_to_png(text.baseAddress, text.count - 1, Int32(width), Int32(height), path, &error, error.count)
        }
        guard status == 0 else {
            let message = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw PNGError(description: message, missingLibrary: status == 1)
        }
    }
}
