/// Small text helpers of camlib's tables.
extension String {
    var nonEmpty: String? { isEmpty ? nil : self }

    /// Followed by spaces up to `width` characters; as it is when longer. (Foundation's
    /// `padding(toLength:withPad:startingAt:)` goes through NSString: about 10 k
    /// instructions a call, more than half of what a 50-row table cost.)
    func padded(to width: Int) -> String {
        let missing = width - count
        return missing > 0 ? self + String(repeating: " ", count: missing) : self
    }
}
