import Testing

@testable import Imaging

/// A 3x2 image whose pixels are their own index, so every transform is traceable.
private func numbered(width: Int = 3, height: Int = 2) -> PixelBuffer<UInt8> {
    PixelBuffer(width: width, height: height, channels: 1, components: (0..<(width * height)).map { UInt8($0) })
}

@Test func rotate90CWTurnsTheFirstColumnIntoTheFirstRow() {
    // 0 1 2        3 0
    // 3 4 5   ->   4 1
    //              5 2
    let out = numbered().applying(.rotate90CW)
    #expect(out.width == 2 && out.height == 3)
    #expect(out.components == [3, 0, 4, 1, 5, 2])
}

@Test func everyOrientationMatchesItsEXIFDefinition() {
    let expected: [EXIFOrientation: [UInt8]] = [
        .up: [0, 1, 2, 3, 4, 5],
        .upMirrored: [2, 1, 0, 5, 4, 3],
        .rotate180: [5, 4, 3, 2, 1, 0],
        .rotate180Mirrored: [3, 4, 5, 0, 1, 2],  // mirror vertical
        .rotate270CWMirrored: [0, 3, 1, 4, 2, 5],  // transpose
        .rotate90CW: [3, 0, 4, 1, 5, 2],
        .rotate90CWMirrored: [5, 2, 4, 1, 3, 0],  // transverse
        .rotate270CW: [2, 5, 1, 4, 0, 3],
    ]
    for (o, pixels) in expected {
        #expect(numbered().applying(o).components == pixels, "orientation \(o.rawValue)")
    }
}

@Test func compositionAgreesWithApplyingOneAfterTheOther() {
    let image = numbered()
    for a in EXIFOrientation.allCases {
        for b in EXIFOrientation.allCases {
            #expect(image.applying(a).applying(b) == image.applying(a.then(b)), "\(a.rawValue) then \(b.rawValue)")
        }
        #expect(a.then(a.inverse) == .up)
    }
}

@Test func heifRotationIsAnticlockwise() {
    #expect(EXIFOrientation.heifRotation(degreesCCW: 270) == .rotate90CW)
    #expect(EXIFOrientation.heifRotation(degreesCCW: 90) == .rotate270CW)
    #expect(EXIFOrientation.heifRotation(degreesCCW: 180) == .rotate180)
    #expect(EXIFOrientation.heifMirror(horizontal: false) == .rotate180Mirrored)
}

@Test func unspecifiedOrientationDisplaysUpright() {
    #expect(EXIFOrientation(exifValue: 0) == .up)
    #expect(EXIFOrientation(exifValue: 9) == .up)
    #expect(EXIFOrientation(exifValue: 6).displayedSize(width: 4032, height: 3024) == (3024, 4032))
}
