import Foundation
import Testing
import TestSupport

@testable import Containers

// XMP, ISOBMFF boxes, MPF, JPEG extents, Motion Photo movies, aux type names.

@Test func xmpPropertiesAreReadFromAttributesAndElementsByNamespace() throws {
    // Prefixes are the writer's choice; camlib keys by namespace URI.
    let xmp = """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:gd="http://ns.google.com/photos/1.0/depthmap/"
            xmlns:Cam="http://ns.google.com/photos/1.0/camera/" xmlns:Container="http://ns.google.com/photos/1.0/container/"
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
            gd:Near="1.5" Cam:MotionPhoto="1">
          <gd:Far>9 &amp; more</gd:Far>
          <Container:Directory><rdf:Seq>
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>
            <rdf:li rdf:parseType="Resource"><Container:Item><Item:Semantic>MotionPhoto</Item:Semantic><Item:Length>42</Item:Length></Container:Item></rdf:li>
          </rdf:Seq></Container:Directory>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """
    let packet = try XMPPacket(parsing: Array(xmp.utf8) + [0, 0])
    #expect(packet.value(XMPNamespace.gDepth, "Near") == "1.5")
    #expect(packet.value(XMPNamespace.gDepth, "Far") == "9 & more")
    #expect(packet.value(XMPNamespace.gCamera, "MotionPhoto") == "1")
    let items = packet.arrayItems(XMPNamespace.container, "Directory")
    #expect(items.count == 2)
    #expect(items[0][.init(XMPNamespace.containerItem, "Semantic")] == "Primary")
    #expect(items[1][.init(XMPNamespace.containerItem, "Length")] == "42")
    #expect(throws: FormatError.self) { try XMPPacket(parsing: Array("<x:xmpmeta><unclosed>".utf8)) }
}

@Test func boxHeadersHandleLargeSizesToTheEndAndGarbage() {
    var w = ISOBoxWriter()
    w.box("ftyp") { $0.fourCC("heic"); $0.u32(0) }
    w.raw([0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 0, 0, 0, 0, 20, 1, 2, 3, 4])  // 64-bit size 20
    w.raw([0, 0, 0, 0] + Array("free".utf8) + [9, 9])  // size 0: to the end
    let boxes = ISOBox.sequence(in: w.bytes, from: 0, limit: w.bytes.count)
    #expect(boxes.map(\.type) == ["ftyp", "mdat", "free"])
    #expect(boxes[1].headerSize == 16 && boxes[1].size == 20 && boxes[1].payload.count == 4)
    #expect(boxes[2].end == w.bytes.count)
    // A size past the end, or a non-printable type, is not a box.
    #expect(ISOBox.header(in: [0, 0, 0, 99] + Array("moov".utf8), at: 0, limit: 8) == nil)
    #expect(ISOBox.header(in: [0, 0, 0, 8, 0, 1, 2, 3], at: 0, limit: 8) == nil)
}

@Test func fullBoxesAreWrittenWithVersionAndFlags() {
    var w = ISOBoxWriter()
    w.box("auxC", version: 0) { $0.cString("urn:x") }
    #expect(w.bytes == [0, 0, 0, 18] + Array("auxC".utf8) + [0, 0, 0, 0] + Array("urn:x".utf8) + [0])
}

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AuxiliaryContainerCorpusTests {
    static func bytes(_ relative: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path(relative))))
    }

    @Test func jpegEndOfImageMatchesTheManifest() throws {
        // The manifest states "EOI@945672" etc.: where the primary JPEG ends.
        let manifest = try Media.manifest()
        for file in ["apple-portrait-jpeg/jpeg_depth_data.jpg", "apple-portrait-jpeg/image-with-depth.jpg", "android-depth-motion/motion_photo.jpeg", "android-depth-motion/microvideo_xmp.jpeg", "android-depth-motion/pixel_8.jpg"] {
            let verified = try #require(manifest[file]).verified
            let eoi = try #require(verified.range(of: "EOI@").map { Int(verified[$0.upperBound...].prefix { $0.isNumber })! })
            #expect(JPEGSegments.endOfImage(in: try Self.bytes(file)) == eoi, "\(file)")
        }
    }

    @Test func mpfIndexListsThePortraitImages() throws {
        let bytes = try Self.bytes("apple-portrait-jpeg/jpeg_depth_data.jpg")
        let index = try MPFIndex(segment: try #require(try JPEGSegments(parsing: bytes).mpfSegment))
        #expect(index.entries.count == 3)
        #expect(index.entries[0].isPrimary)
        // Manifest: MPImage2 27698 bytes, MPImage3 88622 bytes, right after the primary.
        #expect(index.entries[1].offset == 945672 && index.entries[1].size == 27698)
        #expect(index.entries[2].size == 88622 && index.entries[2].offset + 88622 == bytes.count)
        #expect(bytes[index.entries[1].offset] == 0xFF && bytes[index.entries[1].offset + 1] == 0xD8)
    }

    @Test func motionPhotoMoviesAreFoundWhereTheBytesSayNotWhereTheXMPSays() throws {
        // samsung-one-ui-6.heic declares 3226668 bytes; its mpvd box holds a 3226469-byte movie.
        let samsung = try #require(try EmbeddedMovie.find(in: try Self.bytes("android-depth-motion/samsung-one-ui-6.heic"), xmp: nil, imageEnd: nil))
        #expect(samsung.declaredBy == "HEIF mpvd box" && samsung.range.count == 3226469)
        // microvideo_xmp.jpeg: the ftyp is 122562 bytes from the end (the manifest says so).
        let micro = try Self.bytes("android-depth-motion/microvideo_xmp.jpeg")
        let segments = try JPEGSegments(parsing: micro)
        let movie = try #require(try EmbeddedMovie.find(in: micro, xmp: try segments.xmp(), imageEnd: JPEGSegments.endOfImage(in: micro)))
        #expect(movie.range == (micro.count - 122562)..<micro.count)
        // A plain photo declares nothing.
        let plain = try Self.bytes("apple-misc/IMG_4120.JPG")
        #expect(try EmbeddedMovie.find(in: plain, xmp: nil, imageEnd: JPEGSegments.endOfImage(in: plain)) == nil)
    }

    @Test func heifMetaBoxSurvivesARewriteUnchanged() throws {
        // Read and write back without changes: the same items, locations, references and
        // properties, and with no shift the same data offsets.
        for file in ["apple-portrait-heic/heic_depth_data.heic", "apple-live-photo/IMG_3582.HEIC"] {
            let bytes = try Self.bytes(file)
            let meta = try HEIFMetaBox(file: bytes)
            let rewritten = try meta.serialized(shiftingOffsetsFrom: meta.originalRange.upperBound, by: 0)
            let file2 = Array(bytes[..<meta.originalRange.lowerBound]) + rewritten + Array(bytes[meta.originalRange.upperBound...])
            let shift = rewritten.count - meta.originalRange.count
            let again = try HEIFMetaBox(file: file2)
            #expect(again.primaryItemID == meta.primaryItemID)
            #expect(again.references == meta.references)
            #expect(again.properties == meta.properties)
            #expect(again.associations == meta.associations)
            #expect(again.itemInfos.map(\.id) == meta.itemInfos.map(\.id))
            if shift == 0 {
                #expect(again.locations == meta.locations)
            }
        }
    }
}

@Test func auxTypesAreToldFromURNsAndApdi() {
    #expect(AuxiliaryImageType(urn: "urn:com:apple:photo:2020:aux:semanticskymatte") == .skyMatte)
    #expect(AuxiliaryImageType(urn: "urn:mpeg:hevc:2015:auxid:2") == .depth)
    #expect(AuxiliaryImageType(urn: "urn:mpeg:hevc:2015:auxid:2", apdiType: "disparity") == .disparity)
    // Apple labels its portrait matte "depth" with a subtype.
    #expect(AuxiliaryImageType(urn: nil, apdiType: "depth", apdiSubType: "portraiteffectsmatte") == .portraitEffectsMatte)
    #expect(AuxiliaryImageType(urn: "tag:apple.com,2023:photo:aux:styledeltamap") == .other)
    #expect(AuxiliaryImageType(optionName: "portrait-matte") == .portraitEffectsMatte)
    #expect(AuxiliaryImageType.skinMatte.urn == "urn:com:apple:photo:2019:aux:semanticskinmatte")
}
