import CV4L2
import Glibc

/// The boundary between camlib and a V4L2 device: the five calls a capture makes. The
/// real one goes through libv4l2 (which converts MJPEG/YUYV to the RGB24 camlib asks
/// for); tests put a fake kernel here to drive format negotiation, buffer cycling and
/// failures (EINTR, ENODEV, EBUSY) that real hardware produces only sometimes.
///
/// Every call returns -1 (or nil) and sets `errno` on failure, as the system calls do.
/// `package`, not public: its raw pointers are camlib's business, not a library user's.
package protocol V4L2Interface: Sendable {
    func open(_ path: String) -> Int32
    func close(_ fd: Int32)
    /// `request` is a VIDIOC_* number; `argument` points at the matching struct.
    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    func mmap(_ fd: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer?
    func munmap(_ address: UnsafeMutableRawPointer, length: Int)
    /// Waits until a buffer can be dequeued: 1 ready, 0 timed out, -1 error.
    func poll(_ fd: Int32, timeoutMilliseconds: Int32) -> Int32
}

/// libv4l2 on the real device nodes.
package struct LibV4L2: V4L2Interface {
    package init() {}

    package func open(_ path: String) -> Int32 {
        // Non-blocking, so DQBUF never hangs: poll says when a frame is ready.
        cv4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    }

    package func close(_ fd: Int32) { _ = v4l2_close(fd) }

    package func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        cv4l2_ioctl(fd, request, argument)
    }

    package func mmap(_ fd: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer? {
        let p = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset)
        return p == MAP_FAILED ? nil : p
    }

    package func munmap(_ address: UnsafeMutableRawPointer, length: Int) { _ = v4l2_munmap(address, length) }

    package func poll(_ fd: Int32, timeoutMilliseconds: Int32) -> Int32 {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let r = Glibc.poll(&p, 1, timeoutMilliseconds)
        if r > 0, p.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0, p.revents & Int16(POLLIN) == 0 {
            // The device went away (unplugged): report it as the kernel does on DQBUF.
            errno = ENODEV
            return -1
        }
        return r
    }
}

/// The VIDIOC_* request numbers, from the shim (they are C macros).
enum VIDIOC {
    static let querycap = cv4l2_VIDIOC_QUERYCAP()
    static let enumFormat = cv4l2_VIDIOC_ENUM_FMT()
    static let enumFrameSizes = cv4l2_VIDIOC_ENUM_FRAMESIZES()
    static let enumFrameIntervals = cv4l2_VIDIOC_ENUM_FRAMEINTERVALS()
    static let getFormat = cv4l2_VIDIOC_G_FMT()
    static let setFormat = cv4l2_VIDIOC_S_FMT()
    static let getParameters = cv4l2_VIDIOC_G_PARM()
    static let setParameters = cv4l2_VIDIOC_S_PARM()
    static let requestBuffers = cv4l2_VIDIOC_REQBUFS()
    static let queryBuffer = cv4l2_VIDIOC_QUERYBUF()
    static let queueBuffer = cv4l2_VIDIOC_QBUF()
    static let dequeueBuffer = cv4l2_VIDIOC_DQBUF()
    static let streamOn = cv4l2_VIDIOC_STREAMON()
    static let streamOff = cv4l2_VIDIOC_STREAMOFF()
}
