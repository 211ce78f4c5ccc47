import Foundation
import Testing
import TestSupport

/// `camlib edit --filter depth` on camlib's own depth capture (the virtual camera: a
/// person near, objects between, a wall far), and on a photo without depth.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct DepthEditCommandTests {
    /// A still's pixels as 8-bit RGB (or gray), decoded by libheif's and FFmpeg's tools.
    static func samples(_ path: String, gray: Bool = false, in scratch: ScratchDirectory) throws -> [UInt8] {
        var source = path
        if path.lowercased().hasSuffix(".heic") {
            source = scratch.file(UUID().uuidString + ".png")
            #expect(try run("heif-dec", [path, source]).status == 0)
        }
        let raw = scratch.file(UUID().uuidString + ".raw")
        #expect(try run("ffmpeg", ["-v", "error", "-y", "-i", source, "-f", "rawvideo", "-pix_fmt", gray ? "gray" : "rgb24", raw]).status == 0)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    static func contrast(_ rgb: [UInt8], width: Int, where region: (Int, Int) -> Bool) -> Double {
        var (sum, n) = (0.0, 0)
        for y in 0..<(rgb.count / 3 / width) {
            for x in 0..<(width - 1) where region(x, y) && region(x + 1, y) {
                for c in 0..<3 { sum += abs(Double(rgb[(y * width + x + 1) * 3 + c]) - Double(rgb[(y * width + x) * 3 + c])) }
                n += 3
            }
        }
        return sum / Double(max(1, n))
    }

    @Test func camlibsOwnDepthCaptureGetsItsBackgroundBlurredAndItsPersonKept() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let (w, h) = (640, 480)
        #expect(try Camlib.run(["capture", "--library", lib, "--size", "\(w)x\(h)", "--quality", "speed", "--depth", "--portrait-matte"]).status == 0)
        let edit = try Camlib.run(["edit", "1", "--library", lib, "--filter", "depth:aperture=1.4,x=0.5,y=0.75", "--json"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let q = try Camlib.run(["query", "--library", lib, "--json"])
        let asset = try #require((try JSONSerialization.jsonObject(with: Data(q.stdout.utf8)) as? [[String: Any]])?.first)
        let resources = try #require(asset["resources"] as? [[String: Any]])
        let original = try #require(resources.first { $0["role"] as? String == "photo" }?["path"] as? String)
        let render = try #require(resources.first { $0["role"] as? String == "renderedPhoto" }?["path"] as? String)
        let before = try Self.samples(original, in: scratch), after = try Self.samples(render, in: scratch)
        #expect(before.count == w * h * 3 && after.count == w * h * 3)

        // The person, and the wall, by the capture's own matte (well inside each).
        let out = scratch.file("aux")
        #expect(try Camlib.run(["aux", "extract", "--library", lib, "1", "--type", "portrait-matte", "--out", out]).status == 0)
        let png = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasSuffix(".png") })
        let matte = try Self.samples(out + "/" + png, gray: true, in: scratch)
        let mw = Int((Double(matte.count) * Double(w) / Double(h)).squareRoot()), mh = matte.count / mw
        func matteAround(_ x: Int, _ y: Int, _ test: (UInt8) -> Bool) -> Bool {
            for dy in stride(from: -12, through: 12, by: 6) {
                for dx in stride(from: -12, through: 12, by: 6) {
                    let mx = min(mw - 1, max(0, (x + dx) * mw / w)), my = min(mh - 1, max(0, (y + dy) * mh / h))
                    if !test(matte[my * mw + mx]) { return false }
                }
            }
            return true
        }
        let person = { (x: Int, y: Int) in matteAround(x, y) { $0 > 250 } }
        // The wall: the top rows, clear of the person and the objects in front of it.
        let wall = { (x: Int, y: Int) in y < h / 6 && matteAround(x, y) { $0 < 5 } }
        let (wallBefore, wallAfter) = (Self.contrast(before, width: w, where: wall), Self.contrast(after, width: w, where: wall))
        #expect(wallAfter < wallBefore / 2, "wall contrast \(wallBefore) → \(wallAfter)")
        let (personBefore, personAfter) = (Self.contrast(before, width: w, where: person), Self.contrast(after, width: w, where: person))
        #expect(abs(personAfter - personBefore) < personBefore * 0.1 + 0.3, "person contrast \(personBefore) → \(personAfter)")
    }

    @Test func aPhotoWithoutDepthIsRefusedNamingTheAssetAndTheFile() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["import", "--library", lib, Media.path("orientation/Landscape_1.jpg")]).status == 0)
        let edit = try Camlib.run(["edit", "1", "--library", lib, "--filter", "depth:aperture=2.8"])
        #expect(edit.status == 1)
        #expect(edit.stderr.contains("asset 1 (Landscape_1.jpg)") && edit.stderr.contains("needs the photo's depth or disparity map"), "\(edit.stderr)")
        let renders = try FileManager.default.subpathsOfDirectory(atPath: lib + "/derived").filter { $0.hasPrefix("renders/") && $0.contains(".") }
        #expect(renders.isEmpty, "\(renders)")
    }
}
