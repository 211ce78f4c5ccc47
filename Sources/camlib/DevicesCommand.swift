import ArgumentParser
import Capture
import Foundation

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the cameras camlib can capture from.",
        discussion: Help.reflow(
            """
            V4L2 devices (/dev/video*) with their card, bus, capabilities, pixel formats,
            frame sizes and frame rates; depth cameras (Z16) are marked. Formats libv4l
            converts in software are marked "converted". Always listed as well:
              virtual     a synthetic scene (moving shapes, a person, sensor noise) with
                          ground-truth depth and mattes; deterministic per --seed
              file:PATH   a movie file replayed as a camera
            The default camera (marked *) is the one last chosen with `capture --device`
            if present, else the V4L2 colour camera with the largest frames, else virtual.
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @OptionGroup var output: JSONOutput<DevicesCommand>

    func run() throws {
        let devices = DeviceDiscovery.devices()
        let preferred = (try? libraryOptions.openIfExists()?.preference("capture.device")) ?? nil
        let chosen = DeviceDiscovery.defaultDevice(preferred: preferred, among: devices)
        if output.json {
            struct Listed: Encodable {
                var device: CameraDevice
                var isDefault: Bool
                func encode(to encoder: Encoder) throws {
                    try device.encode(to: encoder)
                    var c = encoder.container(keyedBy: Key.self)
                    try c.encode(isDefault, forKey: .isDefault)
                }
                enum Key: String, CodingKey { case isDefault }
            }
            print(try Terminal.json(devices.map { Listed(device: $0, isDefault: $0.id == chosen) }))
            return
        }
        for d in devices {
            var head = "\(d.id == chosen ? "*" : " ") \(d.id)  \(d.name)"
            if d.isDepth { head += "  [depth]" }
            print(head)
            if let problem = d.problem { print("    problem: \(problem)") }
            var facts: [String] = []
            if let driver = d.driver { facts.append("driver \(driver)") }
            if let bus = d.bus, !bus.isEmpty { facts.append("bus \(bus)") }
            if !d.capabilities.isEmpty { facts.append(d.capabilities.joined(separator: ", ")) }
            if !facts.isEmpty { print("    " + facts.joined(separator: "; ")) }
            if !d.auxiliaryOutputs.isEmpty { print("    delivers: " + d.auxiliaryOutputs.joined(separator: ", ")) }
            for f in d.formats {
                print("    \(f.fourCC.trimmingCharacters(in: .whitespaces)) (\(f.description))\(f.emulated ? ", converted" : "")")
                for s in f.sizes {
                    let rates = s.frameRates.map { $0 == $0.rounded() ? String(Int($0)) : String(format: "%.2f", $0) }
                    print("      \(s.size)" + (rates.isEmpty ? "" : " @ " + rates.joined(separator: "/") + " fps"))
                }
            }
        }
        print("  file:PATH  a movie file replayed as a camera")
    }
}

extension DevicesCommand: JSONDescribed {
    static let jsonFields = "an array of the devices"
}
