import ArgumentParser
import Foundation
import Library

/// What `album add|remove` and `keyword add|remove` do around their change: the assets
/// named are found (one not found is said on stderr and the others go on), changed all
/// at once, and the outcome printed as JSON `{KEY: NAME, VERB: [ids changed]}` or as a
/// sentence; exit status 2 when an asset was not found.
enum MembershipChange {
    static func run(
        _ references: [String], in library: PhotoLibrary, json: Bool, key: String, name: String, verb: String,
        change: ([Int64]) throws -> [Int64], sentence: (_ changed: Int, _ unchanged: Int) -> String
    ) throws {
        let (ids, unknown) = AssetReferences.find(references, in: library)
        let changed = try change(ids)
        print(json ? try Terminal.json([key: AnyEncodable(name), verb: AnyEncodable(changed)]) : sentence(changed.count, ids.count - changed.count))
        if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }
}
