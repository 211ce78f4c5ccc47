import Imaging

extension GeometryPlacement {
    /// `picture` reshaped as ``apply(to:)-(PixelBuffer<UInt8>)`` reshapes it (the same
    /// samples), written over the picture's own storage where the output is no larger:
    /// a turn, a mirror and a crop (or any of them after another) move samples in place
    /// (``PixelBuffer/reoriented(_:)``, then ``PixelBuffer/cropped(x:y:width:height:)``);
    /// anything else is drawn a band of rows at a time, each band written in place as soon
    /// as no band still to draw reads the rows it covers (a straighten: at once). A
    /// trailing turn, crop or straighten of a 200-megapixel photo then holds one copy of
    /// it, not two.
    public func apply(reusing picture: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> { apply(reusing: picture, bandBytes: 1 << 22) }

    /// ``apply(reusing:)-(PixelBuffer<UInt8>)`` for 16-bit samples.
    public func apply(reusing picture: consuming PixelBuffer<UInt16>) -> PixelBuffer<UInt16> { apply(reusing: picture, bandBytes: 1 << 22) }

    /// ``apply(reusing:)-(PixelBuffer<UInt8>)`` drawn in bands of about `bandBytes` (16 rows at least).
    func apply(reusing picture: consuming PixelBuffer<UInt8>, bandBytes: Int) -> PixelBuffer<UInt8> {
        if let cut = cut(ofWidth: picture.width, height: picture.height) {
            return picture.reoriented(cut.orientation).cropped(x: cut.x, y: cut.y, width: width, height: height)
        }
        let (w, h, ch) = (picture.width, picture.height, picture.channels)
        let bilinear = !exact && fitsFixedPoint(width: w, height: h)
        return reshaped(reusing: picture, bandBytes: bandBytes) { rows, src, dst in
            if bilinear {
                bilinearRows(rows, of: src, width: w, height: h, channels: ch, into: dst)
            } else {
                resampleRows(rows, of: src, width: w, height: h, channels: ch, into: dst)
            }
        }
    }

    /// ``apply(reusing:bandBytes:)-(PixelBuffer<UInt8>,_)`` for 16-bit samples.
    func apply(reusing picture: consuming PixelBuffer<UInt16>, bandBytes: Int) -> PixelBuffer<UInt16> {
        if let cut = cut(ofWidth: picture.width, height: picture.height) {
            return picture.reoriented(cut.orientation).cropped(x: cut.x, y: cut.y, width: width, height: height)
        }
        let (w, h, ch) = (picture.width, picture.height, picture.channels)
        return reshaped(reusing: picture, bandBytes: bandBytes) { rows, src, dst in resampleRows(rows, of: src, width: w, height: h, channels: ch, into: dst) }
    }

    /// How the output is cut from a w×h input when this placement only moves samples (each
    /// output centre on an input centre, the axes turned by quarter turns or mirrored): the
    /// input reoriented, then the rectangle at (x, y) of that. Nil for any other placement,
    /// or when the output does not lie within.
    func cut(ofWidth w: Int, height h: Int) -> (orientation: EXIFOrientation, x: Int, y: Int)? {
        let (a, b, c, d, e, f) = (a, b, c, d, e, f)
        guard exact, [a, b, d, e].allSatisfy({ $0 == 0 || abs($0) == 1 }), abs(c) < 1e9, abs(f) < 1e9 else { return nil }
        // The output's pixel (x, y) is the input's (a·x + b·y + kx, d·x + e·y + ky).
        let kx = c + 0.5 * (a + b) - 0.5, ky = f + 0.5 * (d + e) - 0.5
        guard kx == kx.rounded(), ky == ky.rounded() else { return nil }
        let (ia, ib, id, ie) = (Int(a), Int(b), Int(d), Int(e))
        guard let orientation = EXIFOrientation.allCases.first(where: {
            let m = $0.sourceMapping(width: w, height: h)
            return (m.ax, m.bx, m.ay, m.by) == (ia, ib, id, ie)
        }) else { return nil }
        // The reoriented input's pixel (x, y) is the input's (a·x + b·y + cx, d·x + e·y + cy),
        // so the output's starts at the inverse (the transpose) of the offsets' difference.
        let m = orientation.sourceMapping(width: w, height: h)
        let (dx, dy) = (Int(kx) - m.cx, Int(ky) - m.cy)
        let (x, y) = (ia * dx + id * dy, ib * dx + ie * dy)
        let (turnedW, turnedH) = orientation.displayedSize(width: w, height: h)
        return x >= 0 && y >= 0 && x + width <= turnedW && y + height <= turnedH ? (orientation, x, y) : nil
    }

    /// The output drawn by `draw` (output rows, the input's samples, where the first of
    /// those rows goes) over the input's own storage, a band of about `bandBytes` at a
    /// time; a new buffer when the output has more pixels than the input.
    private func reshaped<T: PixelComponent>(
        reusing picture: consuming PixelBuffer<T>, bandBytes: Int,
        rows draw: (_ rows: Range<Int>, _ source: UnsafeBufferPointer<T>, _ into: UnsafeMutablePointer<T>) -> Void
    ) -> PixelBuffer<T> {
        let (w, h, ch) = (picture.width, picture.height, picture.channels)
        guard w > 0, h > 0, width > 0, height > 0, width * height <= w * h else { return drawnAnew(picture, rows: draw) }
        let rowLength = width * ch
        // The bands; the first input row each reads, and the least of those from each band on.
        let bandRows = max(16, bandBytes / (rowLength * MemoryLayout<T>.stride))
        let bands = Swift.stride(from: 0, to: height, by: bandRows).map { $0..<Swift.min(height, $0 + bandRows) }
        var firstRead = bands.map { part(x: 0, y: $0.lowerBound, width: width, height: $0.count).sourceRegion(width: w, height: h).y }
        for k in Swift.stride(from: bands.count - 2, through: 0, by: -1) { firstRead[k] = Swift.min(firstRead[k], firstRead[k + 1]) }
        var picture = picture
        var storage: [T] = []
        swap(&storage, &picture.components)
        storage.withUnsafeMutableBufferPointer { base in
            nonisolated(unsafe) let source = UnsafeBufferPointer(base)
            var pending: [(rows: Range<Int>, samples: [T])] = []
            for (k, band) in bands.enumerated() {
                let samples = [T](unsafeUninitializedCapacity: band.count * rowLength) { out, written in
                    nonisolated(unsafe) let out = out
                    forEachBand(rows: band.count) { rows in
                        draw((band.lowerBound + rows.lowerBound)..<(band.lowerBound + rows.upperBound), source, out.baseAddress! + rows.lowerBound * rowLength)
                    }
                    written = band.count * rowLength
                }
                pending.append((band, samples))
                // The drawn bands whose place no band still to draw reads.
                let unread = k + 1 < bands.count ? firstRead[k + 1] * w * ch : Int.max
                while let drawn = pending.first, drawn.rows.upperBound * rowLength <= unread {
                    drawn.samples.withUnsafeBufferPointer { (base.baseAddress! + drawn.rows.lowerBound * rowLength).update(from: $0.baseAddress!, count: $0.count) }
                    pending.removeFirst()
                }
            }
        }
        storage.removeLast(storage.count - rowLength * height)
        return PixelBuffer(width: width, height: height, channels: ch, components: storage)
    }
}
