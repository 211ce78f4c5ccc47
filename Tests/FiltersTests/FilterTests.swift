import Foundation
import Imaging
import Testing

@testable import Filters

/// A deterministic test picture: a colour gradient with a dark disc and a hard vertical edge.
func testPicture(width: Int = 96, height: Int = 64) -> PixelBuffer<UInt8> {
    var p = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
    for y in 0..<height {
        for x in 0..<width {
            let inDisc = (x - 30) * (x - 30) + (y - 32) * (y - 32) < 15 * 15
            let right = x >= width * 3 / 4
            p[x: x, y: y, channel: 0] = inDisc ? 30 : UInt8(x * 255 / width)
            p[x: x, y: y, channel: 1] = inDisc ? 20 : UInt8(y * 255 / height)
            p[x: x, y: y, channel: 2] = right ? 230 : 90
        }
    }
    return p
}

@Test func everyFilterIsDeterministicAndKeepsTheShape() throws {
    let picture = testPicture()
    for name in FilterCatalog.names {
        let step = try FilterStep(parsing: name)
        let a = step.apply(to: picture), b = step.apply(to: picture)
        #expect(a == b, "\(name) is not deterministic")
        // Geometry reshapes the picture (GeometryTests measure how).
        if FilterCatalog.filter(named: name) is any GeometryFilter.Type { continue }
        #expect(a.width == picture.width && a.height == picture.height && a.channels == 3)
        // The light and colour adjustments change nothing at their defaults (0); every
        // other filter changes the picture as it is.
        if FilterCatalog.adjustments.contains(name) {
            #expect(a == picture, "\(name) at its default changed the picture")
            let key = try #require(FilterCatalog.filter(named: name)?.parameters.first?.name)
            #expect(try FilterStep(name: name, parameters: [key: 0.5]).apply(to: picture) != picture, "\(name) changed nothing")
        } else if name == DepthFilter.name {
            // Without the photo's depth it draws nothing (DepthFilterTests draw with one).
            #expect(a == picture, "depth without a depth field changed the picture")
        } else if name == AutoFilter.name {
            // The test picture is exposed well enough; a dark one is changed (AdjustmentTests).
            #expect(a == FilterRecipe(steps: AutoEnhance.steps(measuring: picture)).apply(to: picture))
        } else {
            #expect(a != picture, "\(name) changed nothing")
        }
    }
}

@Test func monoAndNoirAreGray() throws {
    let picture = testPicture()
    for name in ["mono", "noir"] {
        let out = try FilterStep(parsing: name).apply(to: picture)
        for i in stride(from: 0, to: out.components.count, by: 3) {
            #expect(out.components[i] == out.components[i + 1] && out.components[i + 1] == out.components[i + 2])
        }
    }
    // mono is Rec. 709 luma (0.2126, 0.7152, 0.0722 of 255, rounded in 8-bit fixed point).
    var rgb = PixelBuffer<UInt8>(width: 3, height: 1, channels: 3)
    rgb[x: 0, y: 0, channel: 0] = 255
    rgb[x: 1, y: 0, channel: 1] = 255
    rgb[x: 2, y: 0, channel: 2] = 255
    let mono = try FilterStep(parsing: "mono").apply(to: rgb)
    #expect(mono[x: 1, y: 0, channel: 0] == 182 && mono[x: 0, y: 0, channel: 0] == 54 && mono[x: 2, y: 0, channel: 0] == 19)
}

@Test func noirHasMoreContrastThanMono() throws {
    var ramp = PixelBuffer<UInt8>(width: 256, height: 1, channels: 3)
    for x in 0..<256 { for c in 0..<3 { ramp[x: x, y: 0, channel: c] = UInt8(x) } }
    let noir = try FilterStep(parsing: "noir:contrast=2").apply(to: ramp)
    #expect(noir[x: 64, y: 0, channel: 0] < 64 && noir[x: 192, y: 0, channel: 0] > 192)
    #expect(noir[x: 0, y: 0, channel: 0] == 0 && noir[x: 255, y: 0, channel: 0] == 255)
}

@Test func sepiaAtZeroIntensityIsTheIdentity() throws {
    let picture = testPicture()
    #expect(try FilterStep(parsing: "sepia:intensity=0").apply(to: picture) == picture)
    let toned = try FilterStep(parsing: "sepia").apply(to: picture)
    // Sepia is warm: red at least green at least blue.
    for i in stride(from: 0, to: toned.components.count, by: 3) {
        #expect(toned.components[i] >= toned.components[i + 1] && toned.components[i + 1] >= toned.components[i + 2])
    }
}

@Test func posterizeLeavesOnlyItsLevels() throws {
    let out = try FilterStep(parsing: "posterize:levels=3").apply(to: testPicture())
    #expect(Set(out.components).isSubset(of: [0, 128, 255]))
}

@Test func vignetteDarkensCornersNotTheCentre() throws {
    var white = PixelBuffer<UInt8>(width: 101, height: 61, channels: 3)
    for i in white.components.indices { white.components[i] = 255 }
    let out = try FilterStep(parsing: "vignette:strength=1,radius=0.3").apply(to: white)
    #expect(out[x: 50, y: 30, channel: 0] == 255)
    #expect(out[x: 0, y: 0, channel: 0] == 0 && out[x: 100, y: 60, channel: 2] == 0)
    #expect(out[x: 25, y: 15, channel: 0] < 255 && out[x: 25, y: 15, channel: 0] > 0)
}

@Test func recipesParseCheckAndSerialiseStably() throws {
    let step = try FilterStep(parsing: "vignette:strength=0.4")
    #expect(step.parameters == ["strength": 0.4, "radius": 0.5])
    #expect(step.description == "vignette:radius=0.5,strength=0.4")
    #expect(try FilterStep(parsing: step.description) == step)
    for bad in ["", "blur", "vignette:strength", "vignette:strength=2", "vignette:size=3", "comic:edges=nan"] {
        #expect(throws: FilterError.self, "\(bad)") { try FilterStep(parsing: bad) }
    }
    let recipe = FilterRecipe(steps: [try FilterStep(parsing: "comic"), step])
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = String(decoding: try encoder.encode(recipe), as: UTF8.self)
    #expect(json == String(decoding: try encoder.encode(try JSONDecoder().decode(FilterRecipe.self, from: Data(json.utf8))), as: UTF8.self))
    #expect(recipe.apply(to: testPicture()) == step.apply(to: try FilterStep(parsing: "comic").apply(to: testPicture())))
}

