import Foundation
import Imaging

/// The virtual camera's world: a textured wall, two moving shapes and a person (head,
/// hair, face with teeth, body) swaying in front, seen by a slightly shaking hand-held
/// camera with sensor noise. Everything is a function of the seed and the time, so a
/// frame can be made again exactly, and the scene knows its own depth and mattes.
public struct SyntheticScene: Sendable {
    public let size: FrameSize
    public let seed: UInt64
    /// Standard deviation of the sensor noise, in 8-bit levels.
    public var noiseSigma: Double = 6
    /// Amplitude of the hand shake, in pixels.
    public var shake: Double

    /// Distances the depth map reports, metres.
    public static let wallDistance: Float = 4.0
    public static let shapeDistance: Float = 2.5
    public static let personDistance: Float = 1.2

    private let background: [UInt8]
    private let noise: [Int8]

    public init(size: FrameSize, seed: UInt64 = 1) {
        self.size = size
        self.seed = seed
        self.shake = Double(max(size.width, size.height)) / 1000
        var rng = SplitMix(seed)
        // A wall: a warm gradient with a tile grid (features for frame alignment).
        let w = size.width, h = size.height
        let tile = max(8, w / 24)
        var bg = [UInt8](repeating: 0, count: w * h * 3)
        let tint = (Int(rng.next() % 40), Int(rng.next() % 40))
        for y in 0..<h {
            let v = 150 + 60 * y / max(1, h)
            for x in 0..<w {
                let grout = (x % tile) < 2 || (y % tile) < 2
                let shade = ((x / tile) + (y / tile)) % 2 == 0 ? 12 : -12
                let i = (y * w + x) * 3
                bg[i] = UInt8(clamping: grout ? 90 : v + shade + tint.0)
                bg[i + 1] = UInt8(clamping: grout ? 85 : v - 20 + shade)
                bg[i + 2] = UInt8(clamping: grout ? 80 : v - 50 + shade + tint.1)
            }
        }
        background = bg
        // Noise: a table of roughly Gaussian values (a sum of four uniforms) that each
        // row of each frame reads from a random place.
        let count = 1 << 20
        noise = (0..<count).map { _ in
            let sum = (0..<4).reduce(0) { acc, _ in acc + Int(rng.next() % 256) } - 510
            return Int8(clamping: sum / 24)
        }
    }

    /// The scene's shapes at `time` seconds, in pixel coordinates of the frame.
    struct Layout {
        var offsetX: Double, offsetY: Double
        var circle: (x: Double, y: Double, r: Double)
        var square: (x: Double, y: Double, half: Double)
        var head: (x: Double, y: Double, rx: Double, ry: Double)
        var body: (x: Double, y: Double, rx: Double, ry: Double)
        var mouth: (x: Double, y: Double, rx: Double, ry: Double)
    }

    func layout(at time: Double) -> Layout {
        let w = Double(size.width), h = Double(size.height)
        let phase = Double(seed % 1000) / 1000 * 2 * .pi
        let sway = sin(time * 1.3 + phase) * w * 0.03
        let headX = w * 0.5 + sway, headY = h * 0.36
        let unit = min(w, h)
        return Layout(
            offsetX: sin(time * 7.1 + phase) * shake, offsetY: cos(time * 5.3 + phase) * shake,
            circle: (w * (0.2 + 0.12 * sin(time * 1.7 + phase)), h * 0.3, unit * 0.08),
            square: (w * (0.8 - 0.1 * sin(time * 1.1)), h * (0.65 + 0.08 * cos(time * 1.4)), unit * 0.07),
            head: (headX, headY, unit * 0.11, unit * 0.14),
            body: (headX, h * 0.86, unit * 0.27, unit * 0.34),
            mouth: (headX, headY + unit * 0.07, unit * 0.035, unit * 0.012))
    }

    /// The frame the camera sees at `time`; `number` picks the noise (`noise: false`:
    /// the clean scene, what a perfect sensor would see).
    public func render(at time: Double, number: Int, noise addNoise: Bool = true) -> PixelBuffer<UInt8> {
        let w = size.width, h = size.height
        let l = layout(at: time)
        var out = background
        let dx = Int(l.offsetX.rounded()), dy = Int(l.offsetY.rounded())
        out.withUnsafeMutableBufferPointer { px in
            if dx != 0 || dy != 0 { shift(px, dx: dx, dy: dy) }
            fillEllipse(px, l.circle.x + l.offsetX, l.circle.y + l.offsetY, l.circle.r, l.circle.r, (210, 40, 40))
            fillRect(px, l.square.x + l.offsetX, l.square.y + l.offsetY, l.square.half, (40, 70, 200))
            fillEllipse(px, l.body.x + l.offsetX, l.body.y + l.offsetY, l.body.rx, l.body.ry, (40, 120, 90))
            fillEllipse(px, l.head.x + l.offsetX, l.head.y + l.offsetY, l.head.rx, l.head.ry, (224, 172, 140))
            // Hair: the top of the head.
            fillEllipse(px, l.head.x + l.offsetX, l.head.y + l.offsetY - l.head.ry * 0.55, l.head.rx * 1.05, l.head.ry * 0.55, (60, 40, 25))
            fillEllipse(px, l.mouth.x + l.offsetX, l.mouth.y + l.offsetY, l.mouth.rx, l.mouth.ry, (245, 245, 240))
            drawLamp(px, at: time)
            guard addNoise else { return }
            // Sensor noise: each row reads the table from its own pseudo-random place.
            var rng = SplitMix(seed &* 0x9E37_79B9 &+ UInt64(number) &* 0x1000_0000_01B3)
            let rowLength = w * 3
            noise.withUnsafeBufferPointer { table in
                let span = table.count - rowLength
                for y in 0..<h {
                    let start = Int(rng.next() % UInt64(max(1, span)))
                    let row = px.baseAddress! + y * rowLength
                    let n = table.baseAddress! + start
                    for i in 0..<rowLength {
                        row[i] = UInt8(clamping: Int16(row[i]) &+ Int16(n[i]))
                    }
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 3, components: out)
    }

    /// Depth (metres) and mattes at `time`, without noise.
    public func truth(at time: Double) -> SceneTruth {
        let w = size.width, h = size.height
        let l = layout(at: time)
        var depth = PixelBuffer<Float>(width: w, height: h, channels: 1)
        depth.components = [Float](repeating: Self.wallDistance, count: w * h)
        var portrait = PixelBuffer<UInt8>(width: w, height: h, channels: 1)
        var skin = portrait, hair = portrait, teeth = portrait
        let ox = l.offsetX, oy = l.offsetY
        ellipseSpan(l.circle.x + ox, l.circle.y + oy, l.circle.r, l.circle.r) { y, a, b in
            for x in a..<b { depth.components[y * w + x] = Self.shapeDistance }
        }
        let sy0 = max(0, Int(l.square.y + oy - l.square.half)), sy1 = min(h, Int(l.square.y + oy + l.square.half))
        let sx0 = max(0, Int(l.square.x + ox - l.square.half)), sx1 = min(w, Int(l.square.x + ox + l.square.half))
        if sy0 < sy1, sx0 < sx1 {
            for y in sy0..<sy1 { for x in sx0..<sx1 { depth.components[y * w + x] = Self.shapeDistance } }
        }
        for part in [l.body, l.head] {
            ellipseSpan(part.x + ox, part.y + oy, part.rx, part.ry) { y, a, b in
                for x in a..<b {
                    depth.components[y * w + x] = Self.personDistance
                    portrait.components[y * w + x] = 255
                }
            }
        }
        ellipseSpan(l.head.x + ox, l.head.y + oy, l.head.rx, l.head.ry) { y, a, b in
            for x in a..<b { skin.components[y * w + x] = 255 }
        }
        ellipseSpan(l.head.x + ox, l.head.y + oy - l.head.ry * 0.55, l.head.rx * 1.05, l.head.ry * 0.55) { y, a, b in
            for x in a..<b {
                hair.components[y * w + x] = 255
                skin.components[y * w + x] = 0
                depth.components[y * w + x] = Self.personDistance
                portrait.components[y * w + x] = 255
            }
        }
        ellipseSpan(l.mouth.x + ox, l.mouth.y + oy, l.mouth.rx, l.mouth.ry) { y, a, b in
            for x in a..<b {
                teeth.components[y * w + x] = 255
                skin.components[y * w + x] = 0
            }
        }
        return SceneTruth(depth: depth, portraitMatte: portrait, skinMatte: skin, hairMatte: hair, teethMatte: teeth)
    }

    // MARK: drawing

    private func shift(_ px: UnsafeMutableBufferPointer<UInt8>, dx: Int, dy: Int) {
        // The wall moves with the hand: copy the background shifted, edges clamped.
        let w = size.width, h = size.height
        let rowBytes = w * 3
        let ax = min(abs(dx), w - 1)
        background.withUnsafeBufferPointer { bg in
            for y in 0..<h {
                let sy = min(h - 1, max(0, y - dy))
                let src = bg.baseAddress! + sy * rowBytes, dst = px.baseAddress! + y * rowBytes
                if dx >= 0 {
                    (dst + ax * 3).update(from: src, count: (w - ax) * 3)
                    for x in 0..<ax { (dst + x * 3).update(from: src, count: 3) }
                } else {
                    dst.update(from: src + ax * 3, count: (w - ax) * 3)
                    for x in (w - ax)..<w { (dst + x * 3).update(from: src + (w - 1) * 3, count: 3) }
                }
            }
        }
    }

    /// The rows of an ellipse inside the frame: `body(y, x0, x1)` for each row's pixels
    /// x0..<x1. Drawing the picture and the truth maps share it, so they agree exactly.
    private func ellipseSpan(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double, _ body: (Int, Int, Int) -> Void) {
        let w = size.width, h = size.height
        let y0 = max(0, Int((cy - ry).rounded(.down))), y1 = min(h - 1, Int((cy + ry).rounded(.up)))
        guard y0 <= y1 else { return }
        for y in y0...y1 {
            let t = (Double(y) + 0.5 - cy) / ry
            guard abs(t) < 1 else { continue }
            let half = rx * (1 - t * t).squareRoot()
            let x0 = max(0, Int((cx - half).rounded())), x1 = min(w, Int((cx + half).rounded()))
            if x0 < x1 { body(y, x0, x1) }
        }
    }

    private func fillEllipse(
        _ px: UnsafeMutableBufferPointer<UInt8>, _ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double, _ rgb: (UInt8, UInt8, UInt8)
    ) {
        let w = size.width
        ellipseSpan(cx, cy, rx, ry) { y, x0, x1 in
            var i = (y * w + x0) * 3
            for _ in x0..<x1 {
                px[i] = rgb.0
                px[i + 1] = rgb.1
                px[i + 2] = rgb.2
                i += 3
            }
        }
    }

    private func fillRect(_ px: UnsafeMutableBufferPointer<UInt8>, _ cx: Double, _ cy: Double, _ half: Double, _ rgb: (UInt8, UInt8, UInt8)) {
        let w = size.width, h = size.height
        let y0 = max(0, Int(cy - half)), y1 = min(h, Int(cy + half))
        let x0 = max(0, Int(cx - half)), x1 = min(w, Int(cx + half))
        guard y0 < y1, x0 < x1 else { return }
        for y in y0..<y1 {
            var i = (y * w + x0) * 3
            for _ in x0..<x1 {
                px[i] = rgb.0
                px[i + 1] = rgb.1
                px[i + 2] = rgb.2
                i += 3
            }
        }
    }
}

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same scene.
struct SplitMix {
    private var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
