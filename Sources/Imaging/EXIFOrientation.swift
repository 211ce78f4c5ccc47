/// The eight EXIF orientations: how stored pixels must be transformed to be displayed.
///
/// Each case is a horizontal mirror (or none) followed by a clockwise rotation by a
/// multiple of 90°. The cases form a group (the symmetries of a rectangle), so HEIF's
/// `irot`/`imir` sequences and movie track matrices can be folded into one value with
/// ``then(_:)``.
/// ```swift
/// let o = EXIFOrientation.rotate90CW                    // EXIF 6
/// o.displayedSize(width: 4032, height: 3024)            // (3024, 4032)
/// ```
public enum EXIFOrientation: Int, Sendable, CaseIterable, Codable {
    case up = 1
    case upMirrored = 2
    case rotate180 = 3
    case rotate180Mirrored = 4  // mirror vertical
    case rotate270CWMirrored = 5  // transpose: mirror horizontal, then rotate 270° CW
    case rotate90CW = 6
    case rotate90CWMirrored = 7  // transverse: mirror horizontal, then rotate 90° CW
    case rotate270CW = 8

    /// An EXIF tag value; 0 and out-of-range values mean "not specified", which displays as ``up``.
    public init(exifValue: Int) {
        self = EXIFOrientation(rawValue: exifValue) ?? .up
    }

    /// Mirror first (if `mirrored`), then rotate clockwise by `quarterTurnsCW` × 90°.
    public init(quarterTurnsCW: Int, mirrored: Bool) {
        let r = ((quarterTurnsCW % 4) + 4) % 4
        switch (r, mirrored) {
        case (0, false): self = .up
        case (0, true): self = .upMirrored
        case (1, false): self = .rotate90CW
        case (1, true): self = .rotate90CWMirrored
        case (2, false): self = .rotate180
        case (2, true): self = .rotate180Mirrored
        case (3, false): self = .rotate270CW
        default: self = .rotate270CWMirrored
        }
    }

    /// Clockwise quarter turns applied after the optional mirror.
    public var quarterTurnsCW: Int {
        switch self {
        case .up, .upMirrored: 0
        case .rotate90CW, .rotate90CWMirrored: 1
        case .rotate180, .rotate180Mirrored: 2
        case .rotate270CW, .rotate270CWMirrored: 3
        }
    }

    /// Whether a horizontal mirror comes before the rotation.
    public var isMirrored: Bool {
        switch self {
        case .upMirrored, .rotate180Mirrored, .rotate270CWMirrored, .rotate90CWMirrored: true
        default: false
        }
    }

    /// Whether width and height trade places on display.
    public var swapsDimensions: Bool { quarterTurnsCW % 2 == 1 }

    /// This transform followed by `next`.
    ///
    /// A mirror reverses the direction of rotations that came before it, which is why
    /// the earlier turns change sign when `next` mirrors.
    public func then(_ next: EXIFOrientation) -> EXIFOrientation {
        let turns = next.quarterTurnsCW + (next.isMirrored ? -quarterTurnsCW : quarterTurnsCW)
        return EXIFOrientation(quarterTurnsCW: turns, mirrored: isMirrored != next.isMirrored)
    }

    /// The transform that undoes this one.
    public var inverse: EXIFOrientation {
        EXIFOrientation.allCases.first { self.then($0) == .up }!
    }

    /// HEIF `irot`: rotation by `degreesCCW` anticlockwise (0, 90, 180, 270).
    public static func heifRotation(degreesCCW: Int) -> EXIFOrientation {
        EXIFOrientation(quarterTurnsCW: -(degreesCCW / 90), mirrored: false)
    }

    /// HEIF `imir`: a mirror about the vertical axis (left-right, `horizontal: true`) or the
    /// horizontal axis (top-bottom).
    public static func heifMirror(horizontal: Bool) -> EXIFOrientation {
        horizontal ? .upMirrored : .rotate180Mirrored
    }

    /// Where each displayed pixel of a `width`×`height` stored picture comes from: the
    /// displayed pixel (x, y) is the stored pixel (ax·x + bx·y + cx, ay·x + by·y + cy).
    @inlinable
    public func sourceMapping(width w: Int, height h: Int) -> (ax: Int, bx: Int, cx: Int, ay: Int, by: Int, cy: Int) {
        // Undo the clockwise rotation, then the mirror.
        var m: (ax: Int, bx: Int, cx: Int, ay: Int, by: Int, cy: Int)
        switch quarterTurnsCW {
        case 0: m = (1, 0, 0, 0, 1, 0)
        case 1: m = (0, 1, 0, -1, 0, h - 1)
        case 2: m = (-1, 0, w - 1, 0, -1, h - 1)
        default: m = (0, -1, w - 1, 1, 0, 0)
        }
        if isMirrored { (m.ax, m.bx, m.cx) = (-m.ax, -m.bx, w - 1 - m.cx) }
        return m
    }

    /// Size on screen of an image stored as `width` × `height`.
    public func displayedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }
}
