/// Where the comic filter draws its outlines, found on the softened working-size colours
/// the way Canny's detector finds edges, so lines are whole and follow object edges:
///
/// 1. Sobel gradients; a pixel is an edge candidate where its gradient is the largest
///    across the edge (non-maximum suppression: one thin line per edge, however soft the
///    edge is) and at least `low`;
/// 2. candidates connected (8 neighbours) to a pixel of at least `high` are kept, and only
///    in runs of at least `minimumLength` pixels (hysteresis: lines do not break where an
///    edge weakens for a moment, and texture's short flecks are not drawn);
/// 3. each kept line pixel covers the samples around it by how far inside half the line
///    width they lie (chamfer distance: 1 along an axis, √2 diagonally), which the
///    full-size pass turns into a line of any width with smooth sides.
struct InkLines {
    /// Thresholds on the colour gradient, in levels per working pixel (a hard step of S
    /// levels in every channel measures about 0.56·S once the picture is softened).
    let high: Float
    let low: Float
    let minimumLength: Int

    /// How much of each sample a line of half-width `half` (working pixels) covers:
    /// `half + 0.5 − d` within 0 ... 1, where d is the chamfer distance to the nearest
    /// line pixel. Only the samples within `half + 0.5` of a line are covered, so each
    /// line pixel stamps its small neighbourhood (a 3x3 one at the comic's default width)
    /// rather than a distance transform running over the whole plane.
    func coverage(red: FloatPlane, green: FloatPlane, blue: FloatPlane, halfWidth half: Float) -> FloatPlane {
        let w = red.width, h = red.height
        let lines = thinLines(red: red, green: green, blue: blue)
        let reach = half + 0.5
        let radius = max(0, Int(reach.rounded(.down)))
        // The neighbourhood's offsets and what they cover; the chamfer distance of an
        // offset is its longer side plus (√2 − 1) times its shorter one.
        var stamp: [(dx: Int, dy: Int, cover: Float)] = []
        for dy in -radius...radius {
            for dx in -radius...radius {
                let (long, short) = (Float(max(abs(dx), abs(dy))), Float(min(abs(dx), abs(dy))))
                let cover = min(1, reach - (long + (Float(2).squareRoot() - 1) * short))
                if cover > 0 { stamp.append((dx, dy, cover)) }
            }
        }
        var mask = FloatPlane(width: w, height: h)
        mask.values.withUnsafeMutableBufferPointer { m in
            lines.withUnsafeBufferPointer { lines in
                for i in 0..<(w * h) where lines[i] != 0 {
                    let x = i % w, y = i / w
                    if x >= radius, x < w - radius, y >= radius, y < h - radius {
                        for s in stamp where m[i + s.dy * w + s.dx] < s.cover { m[i + s.dy * w + s.dx] = s.cover }
                    } else {
                        for s in stamp {
                            let (sx, sy) = (x + s.dx, y + s.dy)
                            guard sx >= 0, sx < w, sy >= 0, sy < h else { continue }
                            m[sy * w + sx] = max(m[sy * w + sx], s.cover)
                        }
                    }
                }
            }
        }
        return mask
    }

    /// 1 on the kept lines, 0 elsewhere. The gradient is the colour one: the root mean
    /// square of the channels' Sobel gradients, so an edge between two colours of the same
    /// brightness (an orange disc on a blue sky) is an edge too; its direction is the
    /// strongest channel's.
    func thinLines(red: FloatPlane, green: FloatPlane, blue: FloatPlane) -> [UInt8] {
        let w = red.width, h = red.height
        guard w >= 3, h >= 3 else { return [UInt8](repeating: 0, count: w * h) }
        let n = w * h
        typealias V = FloatVector.V
        // Scratch planes as raw buffers: the loops below run over every working pixel of
        // every frame, and array accesses with their checks cost several times the arithmetic.
        // The magnitude's border stays 0 (it is read across the edge); the directions are
        // read only where the magnitude was written.
        let magnitude = UnsafeMutableBufferPointer<Float>.allocate(capacity: n)
        let direction = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: n)
        let candidate = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: n)
        defer { magnitude.deallocate(); direction.deallocate(); candidate.deallocate() }
        magnitude.initialize(repeating: 0)
        candidate.initialize(repeating: 0)
        let (mag, dir) = (magnitude.baseAddress!, direction.baseAddress!)
        // Sobel's gain is 4 for a unit step: in levels per pixel.
        let norm = 1 / (4 * Float(3).squareRoot())
        // The neighbour across the edge, by direction: along x, along y, at 45° and 135°.
        let steps = [1, w, w + 1, w - 1]
        @inline(__always) func sobel(_ l: UnsafePointer<Float>, _ i: Int) -> (x: V, y: V) {
            let a = FloatVector.load(l + i - w - 1), b = FloatVector.load(l + i - w), c = FloatVector.load(l + i - w + 1)
            let d = FloatVector.load(l + i - 1), f = FloatVector.load(l + i + 1)
            let g = FloatVector.load(l + i + w - 1), k = FloatVector.load(l + i + w), m = FloatVector.load(l + i + w + 1)
            return ((c + 2 * f + m) - (a + 2 * d + g), (g + 2 * k + m) - (a + 2 * b + c))
        }
        func sobelAt(_ l: UnsafePointer<Float>, _ i: Int) -> (x: Float, y: Float) {
            let a = l[i - w - 1], b = l[i - w], c = l[i - w + 1]
            let d = l[i - 1], f = l[i + 1]
            let g = l[i + w - 1], k = l[i + w], m = l[i + w + 1]
            return ((c + 2 * f + m) - (a + 2 * d + g), (g + 2 * k + m) - (a + 2 * b + c))
        }
        red.values.withUnsafeBufferPointer { r in
            green.values.withUnsafeBufferPointer { g in
                blue.values.withUnsafeBufferPointer { b in
                    let planes = (r.baseAddress!, g.baseAddress!, b.baseAddress!)
                    for y in 1..<(h - 1) {
                        let start = y * w + 1, end = y * w + w - 1
                        // Several pixels at a time in vector registers, the three channels
                        // together; the row's last ones in a last vector that overlaps the
                        // one before (its pixels come out the same twice).
                        var i = start
                        while end - start >= FloatVector.lanes && i < end {
                            i = min(i, end - FloatVector.lanes)
                            let (rx, ry) = sobel(planes.0, i), (gx, gy) = sobel(planes.1, i), (bx, by) = sobel(planes.2, i)
                            let (rs, gs, bs) = (rx * rx + ry * ry, gx * gx + gy * gy, bx * bx + by * by)
                            FloatVector.store((rs + gs + bs).squareRoot() * norm, mag + i)
                            // The strongest channel's direction; ties stay with the earlier one.
                            var (x, y, best) = (rx, ry, rs)
                            let green = gs .> best
                            (x, y, best) = (x.replacing(with: gx, where: green), y.replacing(with: gy, where: green), best.replacing(with: gs, where: green))
                            let blue = bs .> best
                            (x, y) = (x.replacing(with: bx, where: blue), y.replacing(with: by, where: blue))
                            UnsafeMutableRawPointer(dir + i).storeBytes(of: Self.directions(x, y), as: SIMD8<UInt8>.self)
                            i += FloatVector.lanes
                        }
                        // Rows narrower than a vector, one pixel at a time.
                        while i < end {
                            var (sum, best, bx, by): (Float, Float, Float, Float) = (0, -1, 0, 0)
                            // In channel order; ties stay with the earlier one.
                            func add(_ g: (x: Float, y: Float)) {
                                let squared = g.x * g.x + g.y * g.y
                                sum += squared
                                if squared > best { (best, bx, by) = (squared, g.x, g.y) }
                            }
                            add(sobelAt(planes.0, i))
                            add(sobelAt(planes.1, i))
                            add(sobelAt(planes.2, i))
                            mag[i] = sum.squareRoot() * norm
                            dir[i] = Self.directions(V(repeating: bx), V(repeating: by))[0]
                            i += 1
                        }
                    }
                }
            }
        }
        // Candidates (1 weak, 2 strong): the largest across the edge, along the strongest
        // channel's gradient direction.
        let lowVector = V(repeating: low)
        for y in 1..<(h - 1) {
            var i = y * w + 1
            let end = y * w + w - 1
            while i < end {
                // Past most samples, those below `low`, a vector's worth at a time.
                if i + FloatVector.lanes <= end, !any(FloatVector.load(mag + i) .>= lowVector) {
                    i += FloatVector.lanes
                    continue
                }
                let m = mag[i]
                if m >= low {
                    let step = steps[Int(dir[i])]
                    // Ties go to one side only, so a plateau still gives one line.
                    if m > mag[i - step] && m >= mag[i + step] { candidate[i] = m >= high ? 2 : 1 }
                }
                i += 1
            }
        }
        // Connected runs of candidates: kept when one is strong and the run is long enough.
        // Candidates lie off the border (the loop above leaves it 0), so a candidate's
        // eight neighbours are all in the plane: fixed offsets, no row and column worked out.
        let neighbours = [-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1]
        var lines = [UInt8](repeating: 0, count: n)
        var stack: [Int] = [], run: [Int] = []
        lines.withUnsafeMutableBufferPointer { lines in
            var next = 0
            while next < n {
                let start = next
                // Past most samples, those that are no candidate, eight at a time.
                if start + 8 <= n, UnsafeRawPointer(candidate.baseAddress! + start).loadUnaligned(as: UInt64.self) == 0 {
                    next += 8
                    continue
                }
                next += 1
                guard candidate[start] != 0 else { continue }
                // A candidate is taken out (set to 0) once seen.
                var strong = candidate[start] == 2
                candidate[start] = 0
                stack.append(start)
                run.removeAll(keepingCapacity: true)
                while let i = stack.popLast() {
                    run.append(i)
                    for offset in neighbours where candidate[i + offset] != 0 {
                        let j = i + offset
                        if candidate[j] == 2 { strong = true }
                        candidate[j] = 0
                        stack.append(j)
                    }
                }
                if strong && run.count >= minimumLength { for i in run { lines[i] = 1 } }
            }
        }
        return lines
    }

    /// The direction of gradients (x, y), as an index into the neighbour steps: 0 along x,
    /// 1 along y, 2 at 45° (both of one sign), 3 at 135°; within 22.5° of an axis it is
    /// that axis (tan 67.5° = 2.4142).
    @inline(__always) static func directions(_ x: FloatVector.V, _ y: FloatVector.V) -> SIMD8<UInt8> {
        typealias V = FloatVector.V
        let ax = x.magnitudes, ay = y.magnitudes
        let zero = V(repeating: 0)
        var code = SIMD8<Int32>(repeating: 3)
        code.replace(with: 2, where: (x .> zero) .== (y .> zero))
        code.replace(with: 1, where: ax * 2.4142 .< ay)
        code.replace(with: 0, where: ay * 2.4142 .< ax)
        return SIMD8<UInt8>(truncatingIfNeeded: code)
    }
}
