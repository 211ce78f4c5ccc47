/// Where the comic filter draws its outlines, found on the softened working-size colours
/// the way Canny's detector finds edges, so lines are whole and follow object edges:
///
/// 1. Sobel gradients; a pixel is an edge candidate where its gradient is the largest
///    across the edge (non-maximum suppression: one thin line per edge, however soft the
///    edge is) and at least `low`;
/// 2. candidates connected (8 neighbours) to a pixel of at least `high` are kept, and only
///    in runs of at least `minimumLength` pixels (hysteresis: lines do not break where an
///    edge weakens for a moment, and texture's short flecks are not drawn);
/// 3. the distance from every sample to the nearest line (a two-pass chamfer transform),
///    which the full-size pass turns into a line of any width with smooth sides.
struct InkLines {
    /// Thresholds on the colour gradient, in levels per working pixel (a hard step of S
    /// levels in every channel measures about 0.56·S once the picture is softened).
    let high: Float
    let low: Float
    let minimumLength: Int

    /// Distance in working pixels from each sample to the nearest line (capped at 255).
    func distances(_ channels: [FloatPlane]) -> FloatPlane {
        let lines = thinLines(channels)
        return Self.distanceTransform(lines, width: channels[0].width, height: channels[0].height)
    }

    /// 1 on the kept lines, 0 elsewhere. The gradient is the colour one: the root mean
    /// square of the channels' Sobel gradients, so an edge between two colours of the same
    /// brightness (an orange disc on a blue sky) is an edge too; its direction is the
    /// strongest channel's.
    func thinLines(_ channels: [FloatPlane]) -> [UInt8] {
        let w = channels[0].width, h = channels[0].height
        guard w >= 3, h >= 3 else { return [UInt8](repeating: 0, count: w * h) }
        let n = w * h
        // Scratch planes as raw buffers: the loops below run over every working pixel of
        // every frame, and array accesses with their checks cost several times the arithmetic.
        let magnitude = UnsafeMutableBufferPointer<Float>.allocate(capacity: n)
        let strongest = UnsafeMutableBufferPointer<Float>.allocate(capacity: n)
        let gx = UnsafeMutableBufferPointer<Float>.allocate(capacity: n)
        let gy = UnsafeMutableBufferPointer<Float>.allocate(capacity: n)
        let candidate = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: n)
        defer {
            magnitude.deallocate(); strongest.deallocate(); gx.deallocate(); gy.deallocate(); candidate.deallocate()
        }
        magnitude.initialize(repeating: 0)
        strongest.initialize(repeating: 0)
        gx.initialize(repeating: 0)
        gy.initialize(repeating: 0)
        candidate.initialize(repeating: 0)
        let (load, store) = (FloatVector.load(_:) as (UnsafePointer<Float>) -> FloatVector.V, FloatVector.store)
        let (mag, str, gxp, gyp) = (magnitude.baseAddress!, strongest.baseAddress!, gx.baseAddress!, gy.baseAddress!)
        for plane in channels {
            plane.values.withUnsafeBufferPointer { values in
                let l = values.baseAddress!
                for y in 1..<(h - 1) {
                    let start = y * w + 1, end = y * w + w - 1
                    var i = start
                    // Several pixels at a time in vector registers, then the row's rest.
                    while i + FloatVector.lanes <= end {
                        let a = load(l + i - w - 1), b = load(l + i - w), c = load(l + i - w + 1)
                        let d = load(l + i - 1), f = load(l + i + 1)
                        let g = load(l + i + w - 1), k = load(l + i + w), m = load(l + i + w + 1)
                        let x = (c + 2 * f + m) - (a + 2 * d + g)
                        let y = (g + 2 * k + m) - (a + 2 * b + c)
                        let squared = x * x + y * y
                        store(FloatVector.load(mag + i) + squared, mag + i)
                        let strongest = FloatVector.load(str + i)
                        let stronger = squared .> strongest
                        store(strongest.replacing(with: squared, where: stronger), str + i)
                        store(FloatVector.load(gxp + i).replacing(with: x, where: stronger), gxp + i)
                        store(FloatVector.load(gyp + i).replacing(with: y, where: stronger), gyp + i)
                        i += FloatVector.lanes
                    }
                    while i < end {
                        let a = l[i - w - 1], b = l[i - w], c = l[i - w + 1]
                        let d = l[i - 1], f = l[i + 1]
                        let g = l[i + w - 1], k = l[i + w], m = l[i + w + 1]
                        let x = (c + 2 * f + m) - (a + 2 * d + g)
                        let y = (g + 2 * k + m) - (a + 2 * b + c)
                        let squared = x * x + y * y
                        mag[i] += squared
                        if squared > str[i] {
                            str[i] = squared
                            gxp[i] = x
                            gyp[i] = y
                        }
                        i += 1
                    }
                }
            }
        }
        // Sobel's gain is 4 for a unit step: in levels per pixel.
        let norm = 1 / (4 * Float(channels.count).squareRoot())
        for i in 0..<n { magnitude[i] = magnitude[i].squareRoot() * norm }
        // Candidates (1 weak, 2 strong): the largest across the edge, along the strongest
        // channel's gradient direction (along x, 45°, along y, 135°).
        for y in 1..<(h - 1) {
            for i in (y * w + 1)..<(y * w + w - 1) {
                let m = magnitude[i]
                guard m >= low else { continue }
                let x = gx[i], y = gy[i]
                let ax = abs(x), ay = abs(y)
                let step: Int
                if ay * 2.4142 < ax {
                    step = 1
                } else if ax * 2.4142 < ay {
                    step = w
                } else {
                    step = (x > 0) == (y > 0) ? w + 1 : w - 1
                }
                // Ties go to one side only, so a plateau still gives one line.
                guard m > magnitude[i - step] && m >= magnitude[i + step] else { continue }
                candidate[i] = m >= high ? 2 : 1
            }
        }
        // Connected runs of candidates: kept when one is strong and the run is long enough.
        var lines = [UInt8](repeating: 0, count: n)
        var stack: [Int] = [], run: [Int] = []
        lines.withUnsafeMutableBufferPointer { lines in
            for start in 0..<n where candidate[start] != 0 {
                // A candidate is taken out (set to 0) once seen.
                var strong = candidate[start] == 2
                candidate[start] = 0
                stack.append(start)
                run.removeAll(keepingCapacity: true)
                while let i = stack.popLast() {
                    run.append(i)
                    let x = i % w, y = i / w
                    for ny in max(0, y - 1)...min(h - 1, y + 1) {
                        for j in (ny * w + max(0, x - 1))...(ny * w + min(w - 1, x + 1)) where candidate[j] != 0 {
                            if candidate[j] == 2 { strong = true }
                            candidate[j] = 0
                            stack.append(j)
                        }
                    }
                }
                if strong && run.count >= minimumLength { for i in run { lines[i] = 1 } }
            }
        }
        return lines
    }

    /// Chamfer distances (1 along an axis, √2 diagonally) to the nearest 1 in `lines`:
    /// a pass down (from the row above, then along the row left to right) and a pass up
    /// (from the row below, then right to left). Each row's terms from its neighbour row
    /// run in vector registers; only the scan along the row is serial.
    static func distanceTransform(_ lines: [UInt8], width w: Int, height h: Int) -> FloatPlane {
        var d = FloatPlane(width: w, height: h, repeating: 255)
        guard w > 0, h > 0 else { return d }
        let diagonal: Float = 1.41421356
        d.values.withUnsafeMutableBufferPointer { d in
            lines.withUnsafeBufferPointer { lines in
                for i in 0..<(w * h) where lines[i] != 0 { d[i] = 0 }
            }
            func fromRow(_ row: Int, _ neighbour: Int) {
                let r = d.baseAddress! + row * w, n = d.baseAddress! + neighbour * w
                r[0] = min(r[0], n[0] + 1)
                if w > 1 {
                    r[0] = min(r[0], n[1] + diagonal)
                    r[w - 1] = min(r[w - 1], min(n[w - 1] + 1, n[w - 2] + diagonal))
                }
                if w > 2 {
                    for x in 1..<(w - 1) { r[x] = min(r[x], min(n[x] + 1, min(n[x - 1], n[x + 1]) + diagonal)) }
                }
            }
            for y in 0..<h {
                if y > 0 { fromRow(y, y - 1) }
                let r = d.baseAddress! + y * w
                var previous = r[0]
                for x in 1..<max(1, w) {
                    previous = min(r[x], previous + 1)
                    r[x] = previous
                }
            }
            for y in stride(from: h - 1, through: 0, by: -1) {
                if y < h - 1 { fromRow(y, y + 1) }
                let r = d.baseAddress! + y * w
                var next = r[w - 1]
                for x in stride(from: w - 2, through: 0, by: -1) {
                    next = min(r[x], next + 1)
                    r[x] = next
                }
            }
        }
        return d
    }
}
