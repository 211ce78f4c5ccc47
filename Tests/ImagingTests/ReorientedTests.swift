import Testing

@testable import Imaging

/// Samples that differ from pixel to pixel and channel to channel, from a fixed seed.
private func scrambled<T: PixelComponent & FixedWidthInteger>(_: T.Type, width: Int, height: Int, channels: Int) -> PixelBuffer<T> {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(width * 7919 + height * 31 + channels)
    let samples = (0..<(width * height * channels)).map { _ -> T in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return T(truncatingIfNeeded: state >> 33)
    }
    return PixelBuffer(width: width, height: height, channels: channels, components: samples)
}

// Sizes on both sides of the 64-pixel strips: narrower than one, whole strips, whole
// strips and a remainder, a single row or column, and taller than wide.
private let shapes = [(1, 1), (5, 1), (1, 7), (3, 2), (63, 5), (64, 3), (128, 65), (130, 7), (200, 131), (9, 300)]

@Test func reorientingInItsOwnStorageGivesTheSamplesApplyingGives() {
    for (w, h) in shapes {
        for ch in [1, 3, 4] {
            let picture = scrambled(UInt8.self, width: w, height: h, channels: ch)
            for o in EXIFOrientation.allCases {
                let inPlace = picture.reoriented(o)
                #expect(inPlace == picture.applying(o), "\(w)x\(h), \(ch) channels, orientation \(o.rawValue)")
            }
        }
    }
}

@Test func sixteenBitSamplesAreReorientedWhole() {
    for (w, h) in [(130, 7), (200, 131)] {
        let picture = scrambled(UInt16.self, width: w, height: h, channels: 3)
        for o in EXIFOrientation.allCases {
            #expect(picture.reoriented(o) == picture.applying(o), "\(w)x\(h), orientation \(o.rawValue)")
        }
    }
}

@Test func anEmptyPictureKeepsItsTurnedShape() {
    let empty = PixelBuffer<UInt8>(width: 0, height: 4, channels: 3)
    let turned = empty.reoriented(.rotate90CW)
    #expect(turned.width == 4 && turned.height == 0 && turned.components.isEmpty)
}
