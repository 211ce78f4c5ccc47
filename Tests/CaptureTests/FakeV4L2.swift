import CV4L2
import Foundation
import Glibc

@testable import Capture

/// A V4L2 driver in memory, behind the same `V4L2Interface` as libv4l2: it answers the
/// ioctls a capture makes the way the kernel documents them, and fails on request.
final class FakeV4L2: V4L2Interface, @unchecked Sendable {
    struct Failures {
        /// errno for open (EBUSY, EACCES, ENOENT).
        var open: Int32?
        /// errno for S_FMT (EBUSY: another program streams).
        var setFormat: Int32?
        /// Every Nth DQBUF is interrupted by a signal first (EINTR).
        var interruptEvery: Int?
        /// After this many frames, the device is unplugged (ENODEV).
        var goneAfter: Int?
    }

    let card: String
    let formats: [(fourCC: String, emulated: Bool)]
    let sizes: [(Int, Int)]
    let rates: [UInt32]
    var failures = Failures()

    private let lock = NSLock()
    private(set) var width = 0, height = 0
    private(set) var bytesPerLine = 0
    private(set) var timePerFrame = (numerator: UInt32(1), denominator: UInt32(30))
    private var memory: [UnsafeMutableRawPointer] = []
    private var bufferLength = 0
    private var queued: [UInt32] = []
    private(set) var streaming = false
    private(set) var framesDelivered = 0
    private(set) var dequeueCalls = 0
    private(set) var queueCounts: [UInt32: Int] = [:]
    private(set) var openCount = 0
    private(set) var closeCount = 0
    private(set) var unmapped = 0
    /// Sequence numbers to skip (frames "the driver dropped").
    var skipSequenceAt: Set<Int> = []
    /// Writes frame n into a buffer (row stride, buffer); default: every byte n mod 256.
    var fill: ((Int, Int, UnsafeMutableRawPointer) -> Void)?
    private var sequence: UInt32 = 0

    init(card: String = "Fake Cam", formats: [(String, Bool)] = [("YUYV", false), ("RGB3", true)],
         sizes: [(Int, Int)] = [(1280, 720), (640, 480)], rates: [UInt32] = [30, 15]) {
        self.card = card
        self.formats = formats.map { ($0.0, $0.1) }
        self.sizes = sizes
        self.rates = rates
    }

    deinit { memory.forEach { free($0) } }

    func open(_ path: String) -> Int32 {
        if let e = failures.open {
            errno = e
            return -1
        }
        openCount += 1
        return 42
    }

    func close(_ fd: Int32) { closeCount += 1 }

    func mmap(_ fd: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer? {
        let index = Int(offset) / max(1, bufferLength)
        guard index < memory.count, length == bufferLength else {
            errno = EINVAL
            return nil
        }
        return memory[index]
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) { unmapped += 1 }

    func poll(_ fd: Int32, timeoutMilliseconds: Int32) -> Int32 { 1 }

    /// Unplugs the device `frames` frames from now.
    func unplug(after frames: Int) {
        lock.withLock { failures.goneAfter = framesDelivered + frames }
    }

    func ioctl(_ fd: Int32, _ request: UInt, _ arg: UnsafeMutableRawPointer) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        func fail(_ e: Int32) -> Int32 {
            errno = e
            return -1
        }
        switch request {
        case VIDIOC.querycap:
            let caps = arg.assumingMemoryBound(to: v4l2_capability.self)
            caps.pointee = v4l2_capability()
            write(card, into: &caps.pointee.card)
            write("fakedrv", into: &caps.pointee.driver)
            write("usb-fake-1", into: &caps.pointee.bus_info)
            let c = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
            caps.pointee.capabilities = c | UInt32(V4L2_CAP_DEVICE_CAPS)
            caps.pointee.device_caps = c
            return 0
        case VIDIOC.enumFormat:
            let d = arg.assumingMemoryBound(to: v4l2_fmtdesc.self)
            guard Int(d.pointee.index) < formats.count else { return fail(EINVAL) }
            let f = formats[Int(d.pointee.index)]
            d.pointee.pixelformat = FourCC.code(f.fourCC)
            d.pointee.flags = f.emulated ? UInt32(V4L2_FMT_FLAG_EMULATED) : 0
            write(f.fourCC == "Z16 " ? "16-bit Depth" : "format \(f.fourCC)", into: &d.pointee.description)
            return 0
        case VIDIOC.enumFrameSizes:
            let e = arg.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            guard Int(e.pointee.index) < sizes.count else { return fail(EINVAL) }
            e.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            let s = sizes[Int(e.pointee.index)]
            e.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(s.0), height: UInt32(s.1))
            return 0
        case VIDIOC.enumFrameIntervals:
            let e = arg.assumingMemoryBound(to: v4l2_frmivalenum.self)
            guard Int(e.pointee.index) < rates.count else { return fail(EINVAL) }
            e.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            e.pointee.discrete = v4l2_fract(numerator: 1, denominator: rates[Int(e.pointee.index)])
            return 0
        case VIDIOC.setFormat:
            if let e = failures.setFormat { return fail(e) }
            let f = arg.assumingMemoryBound(to: v4l2_format.self)
            // Drivers pick their nearest size; libv4l converts to RGB24.
            let want = (Int(f.pointee.fmt.pix.width), Int(f.pointee.fmt.pix.height))
            let best = sizes.min { abs($0.0 * $0.1 - want.0 * want.1) < abs($1.0 * $1.1 - want.0 * want.1) }!
            width = best.0
            height = best.1
            // A native format as it is; anything else as RGB24 (libv4l converts).
            let asked = FourCC.text(f.pointee.fmt.pix.pixelformat)
            let delivered = formats.contains { $0.fourCC == asked } ? asked : "RGB3"
            bytesPerLine = width * (delivered == "RGB3" ? 3 : 2) + 16  // padded rows, as some drivers deliver
            f.pointee.fmt.pix.width = UInt32(width)
            f.pointee.fmt.pix.height = UInt32(height)
            f.pointee.fmt.pix.pixelformat = FourCC.code(delivered)
            f.pointee.fmt.pix.bytesperline = UInt32(bytesPerLine)
            f.pointee.fmt.pix.sizeimage = UInt32(bytesPerLine * height)
            return 0
        case VIDIOC.getParameters, VIDIOC.setParameters:
            let p = arg.assumingMemoryBound(to: v4l2_streamparm.self)
            if request == VIDIOC.setParameters {
                let t = p.pointee.parm.capture.timeperframe
                // Snap to the nearest offered rate.
                let asked = Double(t.denominator) / Double(max(1, t.numerator))
                let rate = rates.min { abs(Double($0) - asked) < abs(Double($1) - asked) }!
                timePerFrame = (1, rate)
            }
            p.pointee.parm.capture.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
            p.pointee.parm.capture.timeperframe = v4l2_fract(numerator: timePerFrame.numerator, denominator: timePerFrame.denominator)
            return 0
        case VIDIOC.requestBuffers:
            let r = arg.assumingMemoryBound(to: v4l2_requestbuffers.self)
            r.pointee.count = min(r.pointee.count, 4)
            bufferLength = bytesPerLine * height
            memory.forEach { free($0) }
            memory = (0..<Int(r.pointee.count)).map { _ in malloc(bufferLength)! }
            return 0
        case VIDIOC.queryBuffer:
            let b = arg.assumingMemoryBound(to: v4l2_buffer.self)
            guard Int(b.pointee.index) < memory.count else { return fail(EINVAL) }
            b.pointee.length = UInt32(bufferLength)
            b.pointee.m.offset = b.pointee.index * UInt32(bufferLength)
            return 0
        case VIDIOC.queueBuffer:
            let b = arg.assumingMemoryBound(to: v4l2_buffer.self)
            guard Int(b.pointee.index) < memory.count, !queued.contains(b.pointee.index) else { return fail(EINVAL) }
            queued.append(b.pointee.index)
            queueCounts[b.pointee.index, default: 0] += 1
            return 0
        case VIDIOC.dequeueBuffer:
            dequeueCalls += 1
            if let n = failures.interruptEvery, dequeueCalls % n == 0 { return fail(EINTR) }
            if let gone = failures.goneAfter, framesDelivered >= gone { return fail(ENODEV) }
            guard streaming else { return fail(EINVAL) }
            guard !queued.isEmpty else { return fail(EAGAIN) }
            let index = queued.removeFirst()
            while skipSequenceAt.contains(Int(sequence)) { sequence += 1 }
            // Every pixel of frame n is n (mod 256): the test sees which frame it got.
            if let fill {
                fill(framesDelivered, bytesPerLine, memory[Int(index)])
            } else {
                memset(memory[Int(index)], Int32(framesDelivered % 256), bufferLength)
            }
            let b = arg.assumingMemoryBound(to: v4l2_buffer.self)
            b.pointee.index = index
            b.pointee.bytesused = UInt32(bufferLength)
            b.pointee.sequence = sequence
            let t = Double(framesDelivered) * Double(timePerFrame.numerator) / Double(timePerFrame.denominator)
            b.pointee.timestamp = timeval(tv_sec: Int(t), tv_usec: Int((t - Double(Int(t))) * 1e6))
            sequence += 1
            framesDelivered += 1
            return 0
        case VIDIOC.streamOn:
            streaming = true
            return 0
        case VIDIOC.streamOff:
            streaming = false
            queued = []
            return 0
        default:
            return fail(ENOTTY)
        }
    }

    private func write<T>(_ text: String, into tuple: inout T) {
        withUnsafeMutableBytes(of: &tuple) { raw in
            let bytes = Array(text.utf8.prefix(raw.count - 1))
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
    }
}
