internal import CPNGCodec
import Imaging

/// A PNG written a band of rows at a time (libpng's row API through CPNGCodec), so a
/// picture too large to hold whole is never held: 8 or 16 bits, gray, gray and alpha, RGB
/// or RGBA, as ``PNGCodec/encode(_:texts:compressionLevel:photographic:)`` writes them.
/// Rows are written top to bottom; ``finish()`` gives the file.
public final class PNGRowWriter {
    public let width: Int, height: Int, channels: Int, bitDepth: Int
    /// The file so far, as libpng makes it.
    private var bytes: [UInt8] = []
    private var writer: OpaquePointer?
    private var written = 0

    /// `significantBits` below `bitDepth` goes into an sBIT chunk (the samples must be
    /// scaled to the full range already). `reservingCapacity`: the bytes the file is
    /// expected to take, reserved at once (no copies as it grows).
    public init(
        width: Int, height: Int, channels: Int, bitDepth: Int, significantBits: Int? = nil, compressionLevel: Int = 6,
        photographic: Bool = true, reservingCapacity: Int = 0
    ) throws {
        guard (1...4).contains(channels), bitDepth == 8 || bitDepth == 16, width > 0, height > 0 else {
            throw PNGError(message: "cannot write a \(width)x\(height) \(channels)-channel \(bitDepth)-bit PNG")
        }
        (self.width, self.height, self.channels, self.bitDepth) = (width, height, channels, bitDepth)
        bytes.reserveCapacity(reservingCapacity)
        var error = cpng_error()
        let sink: cpng_sink = { context, data, length in
            let writer = Unmanaged<PNGRowWriter>.fromOpaque(context!).takeUnretainedValue()
            writer.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 1
        }
        writer = cpng_row_writer_open(
            UInt32(width), UInt32(height), Int32(channels), Int32(bitDepth), Int32(significantBits ?? bitDepth), nil, 0,
            Int32(compressionLevel), photographic ? 1 : 0, sink, Unmanaged.passUnretained(self).toOpaque(), &error)
        guard writer != nil else { throw PNGError(message: PNGCodec.message(error)) }
    }

    deinit { cpng_row_writer_free(writer) }

    /// The next rows: a buffer `width` wide with the writer's channels, at its depth.
    public func write<T: PixelComponent & FixedWidthInteger>(_ rows: borrowing PixelBuffer<T>) throws {
        guard let writer, rows.width == width, rows.channels == channels, T.bitWidth == bitDepth, written + rows.height <= height else {
            throw PNGError(message: "rows of \(rows.width)x\(rows.height)x\(rows.channels) do not fit the PNG being written")
        }
        var error = cpng_error()
        let ok = rows.components.withUnsafeBytes { cpng_row_writer_write(writer, $0.baseAddress, UInt32(rows.height), &error) }
        guard ok != 0 else { throw PNGError(message: PNGCodec.message(error)) }
        written += rows.height
    }

    /// The PNG, once every row is written.
    public func finish() throws -> [UInt8] {
        guard let writer else { throw PNGError(message: "the PNG was already finished") }
        var error = cpng_error()
        guard cpng_row_writer_finish(writer, &error) != 0 else { throw PNGError(message: PNGCodec.message(error)) }
        cpng_row_writer_free(writer)
        self.writer = nil
        var file: [UInt8] = []
        swap(&file, &bytes)
        return file
    }
}
