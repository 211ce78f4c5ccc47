import Codecs
import Containers
import Foundation
import Imaging
import Library
import Testing
import TestSupport

/// What capture writes into an aux image's own XMP reaches the catalog.
struct CapturedAuxiliaryTests {
    @Test func aMatteDerivedFromDepthSaysSoInTheCatalog() throws {
        let scratch = try ScratchDirectory()
        var pixels = PixelBuffer<UInt8>(width: 64, height: 48, channels: 3)
        for i in pixels.components.indices { pixels.components[i] = UInt8(i % 251) }
        let photo = try HEIFEncoder.encodeRGB(HEIFEncoder.Still(pixels: pixels))
        let path = scratch.file("photo.heic")
        try Data(photo).write(to: URL(fileURLWithPath: path))
        var matte = PixelBuffer<UInt8>(width: 64, height: 48, channels: 1)
        for i in 0..<(32 * 48) { matte.components[(i / 32) * 64 + i % 32] = 255 }
        let xmp = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:camlib="http://ns.camlib.org/capture/1.0/" camlib:DerivedFrom="depth"/>\
            </rdf:RDF></x:xmpmeta>
            """.utf8)
        let withMatte = try HEIFAuxiliaryWriter.attach(
            to: photo, samples: .eight(matte), urn: "urn:com:apple:photo:2018:aux:portraiteffectsmatte", xmp: xmp)
        try Data(withMatte).write(to: URL(fileURLWithPath: path))

        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let report = try Importer(library: library).run(paths: [path])
        #expect(report.errors.isEmpty, "\(report.errors)")
        let asset = try #require(try library.describe(report.assetIDs).first)
        let aux = try #require(asset.aux.first { $0.type == .portraitEffectsMatte })
        #expect(aux.encoding?.properties["camlib:DerivedFrom"] == "depth", "\(String(describing: aux.encoding))")
        #expect(aux.width == 64 && aux.height == 48)
    }
}
