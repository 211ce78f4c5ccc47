import Foundation

// Writes a Swift file holding data/places/places.tsv.gz's bytes, base64 in one string
// literal (which the compiler takes in a moment, where an array literal of millions of
// numbers would take minutes).
// Usage: PlaceEmbedder OUTPUT.swift places.tsv.gz

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: PlaceEmbedder: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2 else { fail("usage: PlaceEmbedder OUTPUT.swift places.tsv.gz") }
let (output, input) = (arguments[arguments.startIndex], arguments[arguments.startIndex + 1])
guard let data = FileManager.default.contents(atPath: input), data.starts(with: [0x1f, 0x8b]) else {
    fail("\(input) is missing or not gzip (data/places/make_places.py makes it)")
}
let source = """
    // Generated at build time by the EmbedPlaces plugin from \(input). Do not edit.
    import Foundation

    enum EmbeddedPlaces {
        /// The gzip file's bytes.
        static var bytes: [UInt8] { [UInt8](Data(base64Encoded: encoded)!) }

        private static let encoded = "\(data.base64EncodedString())"
    }

    """
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    fail("cannot write \(output): \(error)")
}
