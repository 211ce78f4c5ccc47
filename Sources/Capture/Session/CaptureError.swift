import Glibc

/// Why a capture failed, in words a user can act on.
public enum CaptureError: Error, CustomStringConvertible, Equatable {
    case noSuchDevice(String)
    case permissionDenied(String)
    case busy(String)
    /// The device disappeared while streaming (unplugged: ENODEV).
    case deviceGone(String)
    case notACamera(String, reason: String)
    case unsupported(String)
    case system(device: String, call: String, errno: Int32)
    case timeout(String, seconds: Double)
    /// A capture's file could not be written (the disk is full, the folder went away).
    case cannotWrite(String, errno: Int32)
    case failed(String)

    public var description: String {
        switch self {
        case .noSuchDevice(let d):
            return "\(d): no such camera (see `camlib devices`)"
        case .permissionDenied(let d):
            return "\(d): permission denied; cameras belong to the 'video' group: run `sudo usermod -aG video $USER` and log in again"
        case .busy(let d):
            return "\(d): the camera is busy: another program holds it (close it, or pass --wait to wait for it)"
        case .deviceGone(let d):
            return "\(d): the camera went away while capturing (unplugged?)"
        case .notACamera(let d, let reason):
            return "\(d): not a capture device: \(reason)"
        case .unsupported(let message):
            return message
        case .system(let d, let call, let code):
            return "\(d): \(call) failed: \(String(cString: strerror(code)))"
        case .timeout(let d, let seconds):
            return "\(d): no frame for \(Int(seconds)) s"
        case .cannotWrite(let path, let code):
            return "\(path): cannot write: \(String(cString: strerror(code)))"
        case .failed(let message):
            return message
        }
    }

    /// Maps an errno from opening or configuring a device to the error a user understands.
    static func from(errno code: Int32, device: String, call: String) -> CaptureError {
        switch code {
        case ENOENT, ENXIO: return .noSuchDevice(device)
        case EACCES, EPERM: return .permissionDenied(device)
        case EBUSY: return .busy(device)
        case ENODEV: return .deviceGone(device)
        default: return .system(device: device, call: call, errno: code)
        }
    }
}
