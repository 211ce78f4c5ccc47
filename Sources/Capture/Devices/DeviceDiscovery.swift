import Foundation

/// Finds the cameras of this machine and picks one the way AVCam does.
public enum DeviceDiscovery {
    /// `/dev/video*` devices that capture video (metadata nodes are left out), then the
    /// built-in virtual camera. A device that cannot be opened is listed with its problem.
    public static func devices(directory: String = "/dev") -> [CameraDevice] { devices(interface: LibV4L2(), directory: directory) }

    package static func devices(interface: V4L2Interface, directory: String = "/dev") -> [CameraDevice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let nodes = names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        var found: [CameraDevice] = []
        for node in nodes {
            let path = directory + "/" + node
            do {
                found.append(try V4L2Query.describe(path, interface: interface))
            } catch CaptureError.notACamera {
                continue
            } catch {
                var device = CameraDevice(id: path, kind: .v4l2, name: node, formats: [])
                device.problem = "\(error)"
                found.append(device)
            }
        }
        return found + [VirtualCamera.description()]
    }

    /// The camera to use: `preferred` (remembered from an earlier `--device`) when it is
    /// here and usable, else the V4L2 colour camera with the largest frames, else the
    /// virtual camera.
    public static func defaultDevice(preferred: String?, among devices: [CameraDevice]) -> String {
        if let preferred {
            if preferred.hasPrefix("file:"), FileManager.default.fileExists(atPath: String(preferred.dropFirst(5))) { return preferred }
            if devices.contains(where: { $0.id == preferred && $0.problem == nil }) { return preferred }
        }
        let colour = devices.filter { $0.kind == .v4l2 && !$0.isDepth && $0.problem == nil && $0.largestSize != nil }
        if let best = colour.max(by: { $0.largestSize!.pixels < $1.largestSize!.pixels }) { return best.id }
        return "virtual"
    }

    /// `id` as it is remembered: a `file:` camera's path made absolute (a relative one
    /// would name another file, or none, from another folder).
    public static func normalized(_ id: String) -> String {
        guard id.hasPrefix("file:"), !id.dropFirst(5).hasPrefix("/") else { return id }
        return "file:" + URL(fileURLWithPath: String(id.dropFirst(5))).standardizedFileURL.path
    }

    /// Opens the camera named by `id`: `virtual`, `file:PATH` or a device path. A file
    /// camera replays at `fileSpeed`, and with `fileLoop` starts again at the end instead
    /// of holding its last frame.
    public static func camera(_ id: String, seed: UInt64 = 1, fileSpeed: Double = 1, fileLoop: Bool = false) throws -> FrameSource {
        try camera(id, interface: LibV4L2(), seed: seed, fileSpeed: fileSpeed, fileLoop: fileLoop)
    }

    package static func camera(
        _ id: String, interface: V4L2Interface, seed: UInt64 = 1, fileSpeed: Double = 1, fileLoop: Bool = false
    ) throws -> FrameSource {
        if id == "virtual" { return VirtualCamera(seed: seed) }
        if id.hasPrefix("file:") {
            let path = String(normalized(id).dropFirst(5))
            guard FileManager.default.fileExists(atPath: path) else { throw CaptureError.noSuchDevice(id) }
            return FileCamera(path: path, speed: fileSpeed, loop: fileLoop)
        }
        guard id.hasPrefix("/") else {
            throw CaptureError.noSuchDevice(id)
        }
        let device = try V4L2Query.describe(id, interface: interface)
        if device.isDepth {
            throw CaptureError.unsupported("\(id) is a depth camera (Z16); capture colour from another device (depth pairing comes with --depth-device)")
        }
        return V4L2Camera(path: id, device: device, interface: interface)
    }
}
