import Capture
import Codecs
import Foundation
import Testing

/// The system's sound input, through libavdevice and ALSA. This machine has no sound
/// card, so the real path is driven through ALSA's `null` device (which alsa-lib provides
/// without one): FFmpeg's device loading, the ALSA input, the PCM conversion and
/// the placing of chunks on the camera's clock are the ones a microphone goes through.
struct SystemMicrophoneTests {
    static func monotonicNow() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    @Test func alsaIsReadThroughLibavdevice() throws {
        let before = Self.monotonicNow()
        let input = try SoundInput(driver: "alsa", device: "null", sampleRate: 48_000)
        #expect(input.device == "alsa null" && input.sampleRate == 48_000)
        var total = 0
        for _ in 0..<5 {
            let (samples, heardAt) = try #require(try input.read())
            // (alsa-lib's null capture hands back whatever its buffer held, not silence.)
            #expect(!samples.isEmpty && samples.allSatisfy { $0 >= -1 && $0 < 1 })
            #expect(heardAt > before - 5 && heardAt <= Self.monotonicNow(), "heard at \(heardAt), started at \(before)")
            total += samples.count
        }
        #expect(total > 0)
    }

    @Test func chunksArePlacedOnTheCamerasClock() throws {
        let camera = VirtualCamera(seed: 1)
        _ = try camera.start(CameraConfiguration(size: FrameSize(width: 64, height: 64), frameRate: 30))
        defer { camera.stop() }
        _ = try camera.nextFrame()
        let microphone = SystemMicrophone(beside: camera, device: "null")
        try microphone.start()
        defer { microphone.stop() }
        #expect(microphone.name == "alsa null")
        let chunk = try #require(try microphone.read())
        let origin = try #require(camera.clockOrigin)
        // Heard moments ago, on the clock whose 0 is the camera's first frame.
        let cameraNow = Self.monotonicNow() - origin
        #expect(chunk.time <= cameraNow && chunk.time > cameraNow - 5, "chunk at \(chunk.time) s, camera at \(cameraNow) s")
    }

    @Test func aDeviceThatIsNotThereIsNamedInTheError() throws {
        do {
            _ = try SoundInput(driver: "alsa", device: "camlib-no-such-device")
            Issue.record("a missing ALSA device opened")
        } catch {
            #expect("\(error)".contains("camlib-no-such-device"), "\(error)")
        }
    }
}
