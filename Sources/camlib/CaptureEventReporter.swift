import Capture
import Foundation

/// Events as JSON lines on stdout (--events), or as short progress lines on stderr.
/// `@unchecked Sendable`: every report is written under `lock`.
final class EventReporter: @unchecked Sendable {
    let json: Bool
    /// Interactive mode: a status line is on screen; each event line clears it first.
    var overStatusLine = false
    private let lock = NSLock()

    init(json: Bool) { self.json = json }

    func report(_ e: CaptureEvent) {
        lock.withLock {
            if json {
                // Unbuffered: a reader sees each event when it happens.
                StandardOutput.write(e.jsonLine + "\n")
                return
            }
            let t = (overStatusLine ? "\r\u{1B}[K" : "") + String(format: "%6.2f s", e.time)
            let id = e.id.map { "#\($0) " } ?? ""
            switch e.event {
            case .willCapturePhoto: Terminal.error("\(t)  \(id)shutter")
            case .didFinishProcessingPhoto: Terminal.error("\(t)  \(id)photo \(e.path ?? "")")
            case .didStartRecording: Terminal.error("\(t)  \(id)recording")
            case .didFinishRecording: Terminal.error("\(t)  \(id)movie \(e.path ?? "") (\(e.message ?? ""))")
            case .didFinishProcessingLivePhotoMovie:
                Terminal.error("\(t)  \(id)Live Photo movie \(e.path ?? "")" + (e.livePhotosInProgress.map { $0 > 0 ? " (\($0) more in progress)" : "" } ?? ""))
            case .systemPressure: Terminal.error("\(t)  system pressure: \(e.message ?? "")")
            case .didEndStream: Terminal.error("\(t)  the camera stopped: \(e.message ?? "no more frames")")
            case .error: Terminal.error("\(t)  \(id)error: \(e.message ?? "")")
            case .willBeginCapture, .didFinishRecordingLivePhotoMovie, .didFinishCapture:
                break  // steps on the way to the lines above; `--events` shows them
            }
        }
    }

    func note(_ text: String) {
        if !json { Terminal.error(text) }
    }
}
