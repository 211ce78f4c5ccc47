import Foundation

/// The scene's lamp and its sound, for testing that a movie's sound is in step with its
/// picture: a small lamp in the top-left corner flashes white for a tenth of a second at
/// 0.5 s, 1.5 s, 2.5 s, … and at each flash the microphone hears a click (5 ms of a
/// 2 kHz tone, loud) over a quiet room tone.
extension SyntheticScene {
    /// When the lamp flashes: `flashOffset` past each whole second.
    public static let flashOffset = 0.5
    public static let flashLength = 0.1

    /// Whether the lamp is lit at `time` (seconds on the camera's clock).
    public static func isFlashing(at time: Double) -> Bool {
        let phase = time - (time - flashOffset).rounded(.down) - flashOffset
        return time >= flashOffset && phase >= 0 && phase < flashLength
    }

    /// The lamp: its square (x, y, side) in a frame of `size`.
    public static func lamp(in size: FrameSize) -> (x: Int, y: Int, side: Int) {
        let side = max(8, size.width / 24)
        return (size.width / 48, size.height / 48, side)
    }

    /// Draws the lamp, lit or dark, into interleaved RGB.
    func drawLamp(_ px: UnsafeMutableBufferPointer<UInt8>, at time: Double) {
        let (x0, y0, side) = Self.lamp(in: size)
        let value: UInt8 = Self.isFlashing(at: time) ? 250 : 25
        for y in y0..<min(size.height, y0 + side) {
            let row = y * size.width * 3
            for x in x0..<min(size.width, x0 + side) {
                px[row + x * 3] = value
                px[row + x * 3 + 1] = value
                px[row + x * 3 + 2] = value
            }
        }
    }

    /// The click's length and pitch.
    static let clickSeconds = 0.005
    static let clickPitch = 2000.0

    /// Samples `first ..< first + count` of the scene's sound at `sampleRate` (sample 0 at
    /// the camera's time 0): a 220 Hz hum at -34 dBFS, and a click at each flash.
    public static func sound(from first: Int, count: Int, sampleRate: Int) -> [Float] {
        let rate = Double(sampleRate)
        let clickLength = Int(clickSeconds * rate)
        return (first..<(first + count)).map { n -> Float in
            let t = Double(n) / rate
            var v = 0.02 * sin(2 * .pi * 220 * t)
            // Samples since the latest flash began.
            let since = n - Int(((t - flashOffset).rounded(.down) + flashOffset) * rate)
            if t >= flashOffset, since >= 0, since < clickLength {
                v += 0.8 * sin(2 * .pi * clickPitch * Double(since) / rate)
            }
            return Float(v)
        }
    }
}
