import Containers

/// One auxiliary image written (or not) by `camlib aux extract`.
public struct AuxiliaryExtraction: Codable, Sendable, Equatable {
    public var type: AuxiliaryImageType
    public var source: String
    /// Where it was written; null when it was not.
    public var path: String?
    public var problem: String?
}

/// `<type>.png`, then `<type>-2.png`, … for repeated types.
struct AuxiliaryFileNames {
    private var used: [AuxiliaryImageType: Int] = [:]

    mutating func next(for type: AuxiliaryImageType) -> String {
        let n = (used[type] ?? 0) + 1
        used[type] = n
        return n == 1 ? "\(type.rawValue).png" : "\(type.rawValue)-\(n).png"
    }
}
