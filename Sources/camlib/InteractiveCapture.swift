import ArgumentParser
import Capture
import Codecs
import Foundation

/// `camlib capture -i`: AVCam's screen in a terminal. Keys: space or p takes a photo,
/// r starts and stops a movie, q (or Ctrl-C) quits; a status line shows the camera, the
/// frame rate, the recording time and what was captured.
struct InteractiveCapture {
    let session: CaptureSession
    let settings: PhotoSettings
    let codec: MovieWriter.Codec
    let stop: StopFlag

    func run() throws {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CaptureStartFailure.report("camlib: -i needs a terminal on stdin (use --photo or --movie in scripts)")
        }
        // Raw keys, no echo; the terminal is restored however the loop ends.
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 1  // read() returns after 0.1 s without a key
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        defer {
            var restore = saved
            tcsetattr(STDIN_FILENO, TCSANOW, &restore)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        FileHandle.standardError.write(Data("keys: space/p photo, r record/stop, q quit\n".utf8))
        var photos = 0
        var recordingSince: Double?
        var shown = ""
        while !stop.isSet && session.isStreaming {
            var key: UInt8 = 0
            if read(STDIN_FILENO, &key, 1) == 1 {
                switch key {
                case UInt8(ascii: " "), UInt8(ascii: "p"):
                    session.capturePhoto(settings)
                    photos += 1
                case UInt8(ascii: "r"):
                    if session.isRecording {
                        session.stopRecording()
                        recordingSince = nil
                    } else {
                        do {
                            try session.startRecording(codec: codec, orientation: settings.orientation)
                            recordingSince = session.now
                        } catch {
                            FileHandle.standardError.write(Data("\r\u{1B}[Kcamlib: \(error)\n".utf8))
                        }
                    }
                case UInt8(ascii: "q"), 3, 4:
                    stop.set()
                default:
                    break
                }
            }
            let c = session.configuration
            var status = "\(c.size) \(CaptureCommand.rate(c.frameRate)) fps  photos \(photos)  [space] photo  [r] record  [q] quit"
            if let since = recordingSince { status = String(format: "● REC %05.1f s  ", session.now - since) + status }
            // Redrawn when it changes (an event line may have cleared it: redraw then too).
            if status != shown || recordingSince != nil || key != 0 {
                FileHandle.standardError.write(Data("\r\u{1B}[K\(status)".utf8))
                shown = status
            }
        }
        if session.isRecording { session.stopRecording() }
        session.waitForPhotos()
    }
}
