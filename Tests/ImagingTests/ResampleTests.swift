import Testing

@testable import Imaging

@Test func areaAverageKeepsTheMeanOfEachBlock() {
    // 4x2 → 2x1: each output pixel averages a 2x2 block.
    let image = PixelBuffer<UInt8>(width: 4, height: 2, channels: 1, components: [0, 100, 200, 200, 100, 200, 50, 150])
    let out = image.resampled(width: 2, height: 1)
    #expect(out.components == [100, 150])
}

@Test func scaledToFitKeepsAspectAndLeavesSmallImagesAlone() {
    let big = PixelBuffer<UInt8>(width: 4032, height: 3024, channels: 3)
    let thumb = big.scaledToFit(maxSide: 320)
    #expect(thumb.width == 320 && thumb.height == 240)
    let small = PixelBuffer<UInt8>(width: 100, height: 50, channels: 3)
    #expect(small.scaledToFit(maxSide: 320) == small)
}

@Test func nonIntegerRatiosWeightPartialPixels() {
    // 3 → 2: output 0 covers source 0 and half of 1; output 1 covers half of 1 and 2.
    let image = PixelBuffer<UInt8>(width: 3, height: 1, channels: 1, components: [0, 90, 180])
    let out = image.resampled(width: 2, height: 1)
    #expect(out.components == [30, 150])
}
